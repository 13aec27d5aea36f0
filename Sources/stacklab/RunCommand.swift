import ArgumentParser
import Foundation
import Lab

/// `stacklab run`: runs scenario files and writes their CSVs.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run scenario files: expand each matrix, run every cell, print a summary, write CSV.",
        discussion: "Exit status: 0 every run finished, 1 some run failed (its row has an error cell), 2 bad input.")
    @Argument(help: "Scenario files (YAML).") var files: [String]
    @OptionGroup var selection: ScenarioSelection
    @Option(help: "Where to write the CSVs and their .env.json sidecars.") var out = "results"

    func validate() throws { try selection.validate() }

    // On the main actor and async: the main-queue context's blocks run only while the main actor awaits.
    @MainActor
    func run() async throws {
        let scenarios = try selection.load(files)
        let runner = ScenarioRunner(options: selection.options(out: out))
        var failed = 0
        for scenario in scenarios.map(runner.prepared) {
            let results = try await runner.run(scenario)
            failed += results.filter { $0.error != nil }.count
            print(SummaryTable.text(results, scenario: scenario))
            print("wrote \(runner.csvURL(for: scenario).path)\n")
        }
        if failed > 0 {
            throw failure(verb: "run", "\(failed) run(s) failed; see the error column", status: .regression)
        }
    }
}
