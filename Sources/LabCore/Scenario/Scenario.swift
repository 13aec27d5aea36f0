import Foundation

/// A validated scenario: a workload, its fixed parameters, and a matrix expanded as a cartesian product.
///
/// For example:
/// ```swift
/// let scenario = try ScenarioFile.load(URL(fileURLWithPath: "Scenarios/quick.yaml"))
/// for cell in scenario.cells() { print(cell.label) }
/// ```
public struct Scenario: Sendable {
    /// One list of the matrix: a parameter and the values it takes, in file order.
    public struct Axis: Sendable, Hashable {
        public var name: String
        public var values: [ScenarioValue]
    }

    /// The scenario's name: the CSV file's name and its `scenario` column.
    public var name: String
    /// The file it was read from, if any.
    public var file: URL?
    /// What the scenario answers: its header comment.
    public var about: String
    /// The workload every run performs.
    public var workload: any Workload
    /// The model the runs use.
    public var model: ModelReference
    /// Measured runs per matrix cell; with a `budget`, the fewest (rounds go on past them while the budget lasts).
    public var repetitions: Int
    /// Unmeasured runs per matrix cell before the first measured one.
    public var warmup: Int
    /// Parameters every cell shares (defaults filled in).
    public var parameters: [String: ScenarioValue]
    /// The matrix, in file order; the first axis varies slowest.
    public var matrix: [Axis]
    /// The `cases`: combinations of parameters that vary together, each run with every matrix combination (the
    /// fastest-varying part of a cell); empty when the file has none.
    public var cases: [[String: ScenarioValue]] = []
    /// The parameters the cases set, in the first case's file order.
    public var caseKeys: [String] = []
    /// For a model file (`model:` a path): the file as the registry's loader loaded it, with the version
    /// `version:` chose and the population `population:` gave.
    public var loadedModelFile: (any LoadedModelFile)? = nil
    /// For a model file: the first screen `first_screen:` names (nil: inferred from the model and population).
    public var firstScreen: FirstScreenSpec? = nil
    /// The run's time budget in seconds (`budget:`, `run --budget`): after `repetitions` rounds, rounds go on while
    /// the next is expected to end within it, up to `maxRepetitions`; nil runs exactly `repetitions`.
    public var budget: Double? = nil
    /// With a budget, the most rounds a cell gets (`max_repetitions:`; default `defaultMaxRepetitions`).
    public var maxRepetitions: Int? = nil
    /// The cells every other cell is compared with, in the summary and by the budget's rule for stopping a cell
    /// (`reference:`, `run --reference`); nil compares nothing.
    public var reference: Reference? = nil

    /// The number of matrix cells (matrix combinations times cases).
    public var cellCount: Int { matrix.reduce(1) { $0 * $1.values.count } * max(cases.count, 1) }

    /// The parameters a cell's own values set: the matrix's axes, then the cases' parameters.
    public var axisNames: [String] { matrix.map(\.name) + caseKeys }

    /// The same scenario shrunk for CI: one repetition, no warm-up, counts lowered to each parameter's quick cap.
    public func quick() -> Scenario {
        var copy = self
        copy.repetitions = 1
        copy.warmup = 0
        // A shrunk run checks that the scenario works; a budget would only make it longer.
        copy.budget = nil
        let specs = Dictionary(uniqueKeysWithValues: workload.parameters.map { ($0.name, $0) })
        copy.parameters = parameters.mapValues { $0 }
        for (name, value) in parameters { copy.parameters[name] = specs[name]?.shrunk(value) ?? value }
        copy.matrix = matrix.map { axis in
            var seen = Set<ScenarioValue>()
            let values = axis.values.map { specs[axis.name]?.shrunk($0) ?? $0 }.filter { seen.insert($0).inserted }
            return Axis(name: axis.name, values: values)
        }
        var seenCases: [[String: ScenarioValue]] = []
        for values in cases {
            let shrunk = Dictionary(
                uniqueKeysWithValues: values.map { ($0.key, specs[$0.key]?.shrunk($0.value) ?? $0.value) })
            if !seenCases.contains(shrunk) { seenCases.append(shrunk) }
        }
        copy.cases = seenCases
        return copy
    }

    /// Every cell of the matrix, first axis slowest, keeping those that match every filter and that the workload
    /// runs (`Workload.accepts`).
    ///
    /// - Parameter filters: parameter name → accepted values (as written on the command line); a cell
    ///   matches when its value of each named parameter is one of the accepted ones.
    /// - Complexity: O(cells × parameters).
    public func cells(filters: [String: Set<String>] = [:]) -> [RunCell] {
        var combinations: [[ScenarioValue]] = [[]]
        for axis in matrix {
            combinations = combinations.flatMap { prefix in axis.values.map { prefix + [$0] } }
        }
        let caseList = cases.isEmpty ? [[:]] : cases
        return combinations.flatMap { values in caseList.map { (values, $0) } }.enumerated().compactMap {
            index, cell in
            let (values, chosen) = cell
            var all = parameters
            for (axis, value) in zip(matrix, values) { all[axis.name] = value }
            for name in caseKeys { all[name] = chosen[name] }
            for (name, accepted) in filters
            where !accepted.contains(where: { all[name]?.matches(filterOperand: $0) ?? false }) { return nil }
            guard workload.accepts(all) else { return nil }
            let own =
                zip(matrix.map(\.name), values).map { ($0, $1) }
                + caseKeys.compactMap { name in
                    chosen[name].map { (name, $0) }
                }
            return RunCell(index: index + 1, matrixValues: own, parameters: all)
        }
    }

    /// Checks `--filter` names against the scenario's parameters.
    /// - Throws: `LabError.invalidScenario` naming an unknown parameter.
    public func validate(filters: [String: Set<String>]) throws {
        try refuseModelFileUnlessWorkloadTakesIt()
        let known = Set(workload.parameters.map(\.name))
        for name in filters.keys.sorted() where !known.contains(name) {
            throw LabError(
                .invalidScenario,
                "--filter \(name)=…: scenario '\(self.name)' (workload \(workload.name)) has no parameter '\(name)'; "
                    + "expected one of \(known.sorted().joined(separator: ", "))")
        }
    }
}

/// One cell of a scenario's matrix: the values of the matrix parameters and every parameter resolved.
public struct RunCell: Sendable {
    /// The cell's number in the full matrix, from 1.
    public var index: Int
    /// The matrix parameters' values, in matrix order.
    public var matrixValues: [(name: String, value: ScenarioValue)]
    /// Every parameter: defaults, fixed parameters and matrix values.
    public var parameters: [String: ScenarioValue]

    /// `store=sqlite strategy=main-only …` (the store, the strategy, then the other matrix values), for progress lines.
    public var label: String {
        let others = matrixValues.filter { $0.name != "store" && $0.name != "strategy" }.map {
            "\($0.name)=\($0.value)"
        }
        let fixed = ["store", "strategy"].compactMap { name in parameters[name].map { "\(name)=\($0)" } }
        return (fixed + others).joined(separator: " ")
    }
}
