import ArgumentParser
import Foundation
import LabWorkloads

/// `stacklab check`: each scenario's CSV has every row and no error cell.
struct CheckCommand<Tool: LabTool>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "check",
            abstract: "Check that each scenario's CSV has a row for every cell and repetition and no error cell.",
            discussion:
                "Give the same options as the run. Exit status: 0 complete, 1 a missing row or an error cell, 2 bad input."
        )
    }
    @Argument(help: "Scenario files (YAML).") var files: [String]
    @OptionGroup var selection: ScenarioSelection
    @Option(help: "Where the run wrote its CSVs.") var out = "results"

    func validate() throws { try selection.validate() }

    @MainActor
    func run() async throws {
        let runner = ScenarioRunner(options: selection.options(out: out))
        var problems: [String] = []
        for scenario in try selection.load(files, workloads: Tool.workloads).map(runner.prepared) {
            let found = ResultCheck.problems(
                in: runner.csvURL(for: scenario), scenario: scenario, filters: selection.filters)
            problems += found
            if found.isEmpty {
                // Under a budget the rounds vary by cell: the file says how many there were.
                let text = (try? String(contentsOf: runner.csvURL(for: scenario), encoding: .utf8)) ?? ""
                let rows = max(0, ResultCSV.parse(text).count - 1)
                print("ok \(runner.csvURL(for: scenario).path): \(rows) rows, no error")
            }
        }
        guard problems.isEmpty else {
            problems.forEach { FileHandle.standardError.write(Data("\($0)\n".utf8)) }
            throw ExitStatus.regression.code
        }
    }
}
