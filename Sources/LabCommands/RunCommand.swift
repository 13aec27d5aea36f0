import ArgumentParser
import Foundation
import LabWorkloads

/// `stacklab run`: runs scenario files and writes their CSVs.
struct RunCommand<Tool: LabTool>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "run",
            abstract: "Run scenario files: expand each matrix, run every cell, print a summary, write CSV.",
            discussion: """
                --shard K/N runs only the cells at positions K, K+N, K+2N… of each expanded matrix (the same cells \
                for the same file on every machine) and records the shard in the .env.json sidecar; `stacklab merge` \
                joins the N CSVs. With a budget (--budget, or the scenario's budget key) the rounds go on after \
                the repetitions while the next is expected to end within it, up to max_repetitions; a cell stops \
                early only once it is the same as its reference twin (--reference, or the scenario's reference key) \
                on every headline metric, within 10% at 95%. The summary shows each workload's headline metrics in \
                at most 120 columns (--wide shows every metric), then, with a reference, each cell's ratio to its \
                twin with its 95% interval and verdict. \
                Exit status: 0 every run finished, 1 some run failed (its row has an error cell), 2 bad input.
                """)
    }
    @Argument(help: "Scenario files (YAML).") var files: [String]
    @OptionGroup var selection: ScenarioSelection
    @Option(help: "Where to write the CSVs and their .env.json sidecars.") var out = "results"
    @Option(help: ArgumentHelp("Run only shard K of N: every N-th cell of the matrix.", valueName: "K/N"))
    var shard: String?
    @Flag(help: "Show every metric in the summary, not only the workload's headline metrics (wider than 120 columns).")
    var wide = false
    @Flag(help: .hidden) var paced = false

    func validate() throws {
        try selection.validate()
        if let shard, Shard(shard) == nil {
            throw ValidationError("--shard takes K/N with 1 ≤ K ≤ N, got '\(shard)'")
        }
    }

    // On the main actor and async: the main-queue context's blocks run only while the main actor awaits.
    @MainActor
    func run() async throws {
        let scenarios = try selection.load(files, workloads: Tool.workloads)
        var options = selection.options(out: out)
        options.shard = shard.flatMap(Shard.init)
        // compare --paired's worker: each run waits for its turn on standard input (RunPace).
        if paced { options.pace = .standardStreams }
        let runner = ScenarioRunner(options: options)
        var failed = 0
        for scenario in scenarios.map(runner.prepared) {
            let results = try await runner.run(scenario)
            failed += results.filter { $0.error != nil }.count
            print(SummaryTable.text(results, scenario: scenario, wide: wide))
            print("wrote \(runner.csvURL(for: scenario).path)\n")
        }
        if failed > 0 {
            throw failure(verb: "run", "\(failed) run(s) failed; see the error column", status: .regression)
        }
    }
}
