import ArgumentParser
import Foundation
import LabWorkloads

/// The options `run` and `check` share: which scenarios, shrunk or not, how many repetitions, which cells.
struct ScenarioSelection: ParsableArguments {
    @Flag(help: "Shrink every scenario (one repetition, no warm-up, small counts) so CI can run it.") var quick = false
    @Option(help: "Repetitions per cell, overriding the scenario files (with a budget: the fewest).") var repetitions:
        Int?
    @Option(
        help: ArgumentHelp(
            "A time budget per scenario (10m, 90s, 1h): more rounds while it lasts, overriding the files' budget.",
            valueName: "TIME"))
    var budget: String?
    @Option(
        help: ArgumentHelp(
            "Compare each cell with its twin with this value, in the summary and the budget's rule.",
            valueName: "COLUMN=VALUE"))
    var reference: String?
    @Option(help: ArgumentHelp("Run only cells whose parameter k has value v (repeatable).", valueName: "k=v"))
    var filter: [String] = []

    func validate() throws {
        if let repetitions, repetitions < 1 { throw ValidationError("--repetitions must be at least 1") }
        for item in filter where !item.contains("=") { throw ValidationError("--filter takes k=v, got '\(item)'") }
        if let budget, Scenario.budgetSeconds(budget) == nil {
            throw ValidationError("--budget takes a time such as 10m, 90s, 1h or 1m30s, got '\(budget)'")
        }
        if let reference, Scenario.Reference(reference) == nil {
            throw ValidationError("--reference takes COLUMN=VALUE, such as strategy=shared-coordinator")
        }
    }

    /// The filters as parameter → accepted values.
    var filters: [String: Set<String>] {
        var filters: [String: Set<String>] = [:]
        for item in filter {
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            filters[parts[0], default: []].insert(parts.count > 1 ? parts[1] : "")
        }
        return filters
    }

    func options(out: String) -> ScenarioRunner.Options {
        var options = ScenarioRunner.Options(
            outDirectory: URL(fileURLWithPath: out), quick: quick, repetitions: repetitions, filters: filters)
        options.engines = LabStores.engines
        options.budget = budget.flatMap(Scenario.budgetSeconds)
        options.reference = reference.flatMap(Scenario.Reference.init)
        return options
    }

    /// Loads every file naming one of `workloads`; a bad file or filter is bad input (exit 2).
    func load(_ files: [String], workloads: WorkloadRegistry) throws -> [Scenario] {
        try files.map { file in
            let scenario = try loadScenario(file, workloads: workloads)
            do {
                try scenario.validate(filters: filters)
            } catch {
                throw failure("\(error)")
            }
            if let reference = reference.flatMap(Scenario.Reference.init),
                let problem = scenario.problem(with: reference)
            {
                throw failure("--reference: \(problem)")
            }
            return scenario
        }
    }
}

/// Loads a scenario file naming one of `workloads`; its error (file, line, what is expected, or the program that
/// runs its workload) goes to standard error with exit status 2.
func loadScenario(_ file: String, workloads: WorkloadRegistry) throws -> Scenario {
    do {
        return try ScenarioFile.load(URL(fileURLWithPath: file), workloads: workloads)
    } catch {
        throw failure("\(error)")
    }
}
