import Foundation

/// Runs scenarios: expands each matrix, runs every cell (warm-up runs, then the repetitions in rounds, every cell
/// once a round, so machine noise hits them alike), reports progress, and writes a CSV and its environment sidecar
/// per scenario. A run that fails is recorded in its row's `error` cell and the rest go on.
///
/// With a budget (`Scenario.budget`, `Options.budget`) the rounds go on after the scenario's repetitions while the
/// next round is expected to end within the budget (each cell's last run time, added up), up to
/// `Scenario.mostRepetitions`. A cell stops getting rounds early only once it is *same* as its reference twin on
/// every headline metric (`Scenario.reference`, `WithinRunComparison`): stopping on *faster* or *slower* would
/// call differences that a few lucky rounds made; stopping on *same* cannot inflate them. A reference cell stops
/// when every cell compared with it has. The clock is the options' clock, so the rule is tested without waiting.
///
/// For example:
/// ```swift
/// let runner = ScenarioRunner(options: .init(outDirectory: URL(fileURLWithPath: "results")))
/// let results = await runner.run(try ScenarioFile.load(url))
/// print(SummaryTable.text(results, scenario: scenario))
/// ```
/// Must run on the main actor: the main-queue context's blocks run only while the main actor awaits.
@MainActor
public final class ScenarioRunner {
    /// How scenarios are run.
    public struct Options: Sendable {
        /// Shrink every scenario (`Scenario.quick()`).
        public var quick = false
        /// Overrides each scenario's repetitions.
        public var repetitions: Int?
        /// Overrides each scenario's budget, in seconds.
        public var budget: Double?
        /// Overrides each scenario's reference.
        public var reference: Scenario.Reference?
        /// The band within which the budget's rule calls a cell the same as its reference.
        public var threshold = 0.10
        /// Parameter name → accepted values; cells that do not match are skipped.
        public var filters: [String: Set<String>] = [:]
        /// Run only this slice of each matrix (after the filters); nil runs every cell.
        public var shard: Shard?
        /// Where CSVs go.
        public var outDirectory: URL
        /// Where run folders (store files) go.
        public var workDirectory = FileManager.default.temporaryDirectory
        /// The linked engines' versions, for the environment sidecar (the core links none).
        public var engines: [EngineVersion] = []
        /// The clock every run times with.
        public var clock: any LabClock = SystemClock()
        /// Holds each run until another process says go (`run --paced`); nil runs one after the other freely.
        public var pace: RunPace?

        /// Creates options writing to `outDirectory`.
        public init(
            outDirectory: URL, quick: Bool = false, repetitions: Int? = nil, filters: [String: Set<String>] = [:]
        ) {
            self.outDirectory = outDirectory
            self.quick = quick
            self.repetitions = repetitions
            self.filters = filters
        }
    }

    /// How scenarios are run.
    public let options: Options
    /// Where progress goes.
    public var progress: ProgressReporter

    /// Creates a runner.
    public init(options: Options, progress: ProgressReporter = .standardOutput()) {
        self.options = options
        self.progress = progress
    }

    /// The scenario as this runner runs it: shrunk under `--quick` (which drops any budget), repetitions, budget
    /// and reference overridden.
    public func prepared(_ scenario: Scenario) -> Scenario {
        var scenario = options.quick ? scenario.quick() : scenario
        if let repetitions = options.repetitions { scenario.repetitions = repetitions }
        if let budget = options.budget, !options.quick { scenario.budget = budget }
        if let reference = options.reference { scenario.reference = reference }
        return scenario
    }

    /// The CSV a scenario's results go to.
    public func csvURL(for scenario: Scenario) -> URL {
        options.outDirectory.appendingPathComponent("\(scenario.name).csv")
    }

    /// Runs one scenario (already `prepared`), writes its CSV and sidecar, and returns every measured run.
    /// - Throws: when the CSV cannot be written, or (`LabError.unsupported`) the scenario is on a model file its
    ///   workload does not take; failed runs are results with an `error`.
    public func run(_ scenario: Scenario) async throws -> [RunResult] {
        try scenario.refuseModelFileUnlessWorkloadTakesIt()
        let started = Date()
        // The checkout as the run starts: the binary was built from it, and a commit made while a long run goes
        // on (a merge, say) must not be recorded as the code that ran.
        let commit = EnvironmentRecord.gitCommit()
        let matrix = scenario.cells(filters: options.filters)
        let cells = options.shard.map { $0.select(matrix) } ?? matrix
        let budgeted = scenario.budget != nil
        let total = budgeted ? nil : cells.count * (scenario.warmup + scenario.repetitions)
        var done = 0
        var results: [RunResult] = []
        let peakResets = ProcessUsage.resetPeak()
        let shared = options.workDirectory.appendingPathComponent("stacklab-shared-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: shared) }
        let clock = options.clock
        let began = clock.nowMilliseconds()
        for cell in cells {
            for _ in 0..<scenario.warmup {
                done += 1
                progress.starting(done, of: total, scenario: scenario.name, cell: cell, repetition: 0, warmup: true)
                let result = await pacedRun(scenario, cell: cell, repetition: 0, shared: shared)
                progress.finished(done, of: total, result: result, warmup: true)
            }
        }
        var active = cells
        var lastTime: [Int: Double] = [:]
        for round in 1...scenario.mostRepetitions {
            if round > scenario.repetitions {
                let settled = settledCells(results, scenario: scenario)
                active.removeAll { settled.contains($0.index) }
                let expected = active.reduce(0) { $0 + (lastTime[$1.index] ?? 0) }
                guard let budget = scenario.budget, !active.isEmpty,
                    clock.milliseconds(since: began) + expected <= budget * 1000
                else { break }
            }
            for cell in active {
                done += 1
                progress.starting(
                    done, of: total, scenario: scenario.name, cell: cell, repetition: round, warmup: false)
                let start = clock.nowMilliseconds()
                let result = await pacedRun(scenario, cell: cell, repetition: round, shared: shared)
                lastTime[cell.index] = clock.milliseconds(since: start)
                progress.finished(done, of: total, result: result, warmup: false)
                results.append(result)
            }
        }
        progress.end()
        scenario.workload.finish(&results)
        let url = csvURL(for: scenario)
        try ResultCSV.write(results, scenario: scenario, to: url)
        try EnvironmentRecord.current(
            scenario: scenario, quick: options.quick, started: started, peakMemoryPerRun: peakResets,
            engines: options.engines, shard: options.shard, matrixCells: matrix.count,
            gitCommit: commit, rounds: results.map(\.repetition).max()
        )
        .write(to: url.deletingPathExtension().appendingPathExtension("env.json"))
        return results
    }

    /// The cells a budgeted run stops adding rounds to: every cell the same as its reference twin on every headline
    /// metric it has, and every reference cell whose compared cells are all settled. Empty without a budget or a
    /// reference.
    func settledCells(_ results: [RunResult], scenario: Scenario) -> Set<Int> {
        guard scenario.budget != nil, let reference = scenario.reference else { return [] }
        let table = ResultTable(results: results, scenario: scenario)
        let headline = scenario.workload.headlineMetrics.map { ResultCSV.columnName(of: $0, in: scenario) }
        guard
            let within = try? WithinRunComparison(
                table, reference: reference, metrics: headline.filter(table.columns.contains),
                threshold: options.threshold)
        else { return [] }
        var verdicts: [[String: String]: [ComparisonVerdict]] = [:]
        for row in within.rows() { verdicts[row.cell, default: []].append(row.verdict) }
        let cells = Dictionary(results.map { ($0.cell.index, $0.cell) }, uniquingKeysWith: { first, _ in first })
        func key(_ cell: RunCell) -> [String: String] {
            Dictionary(
                uniqueKeysWithValues: within.cellColumns.map { column in
                    (column, Self.cellValue(column, of: cell, scenario: scenario))
                })
        }
        var settled: Set<Int> = []
        var dependents: [Int: [Int]] = [:]
        for cell in cells.values {
            let own = key(cell)
            guard own[reference.column] != reference.value else { continue }
            var twinKey = own
            twinKey[reference.column] = reference.value
            guard let twin = cells.values.first(where: { key($0) == twinKey }) else { continue }
            let same = verdicts[own].map { !$0.isEmpty && $0.allSatisfy { $0 == .same } } ?? false
            dependents[twin.index, default: []].append(cell.index)
            if same { settled.insert(cell.index) }
        }
        for (twin, compared) in dependents where compared.allSatisfy(settled.contains) { settled.insert(twin) }
        return settled
    }

    /// A cell's value in a column of its CSV row, as `ResultCSV` writes it.
    static func cellValue(_ column: String, of cell: RunCell, scenario: Scenario) -> String {
        switch column {
        case "scenario": scenario.name
        case "workload": scenario.workload.name
        default: cell.parameters[column]?.description ?? ""
        }
    }

    /// One run, when the pace (if any) lets it go.
    func pacedRun(_ scenario: Scenario, cell: RunCell, repetition: Int, shared: URL) async -> RunResult {
        let id = RunResult.runID(cell: cell.index, repetition: repetition)
        options.pace?.waitForTurn(id)
        let result = await runOnce(scenario, cell: cell, repetition: repetition, shared: shared)
        options.pace?.turnDone(id)
        return result
    }

    /// One run in a fresh folder; never throws: a failure becomes the result's `error`.
    func runOnce(_ scenario: Scenario, cell: RunCell, repetition: Int, shared: URL) async -> RunResult {
        var result = RunResult(
            scenario: scenario.name, workload: scenario.workload.name, cell: cell, repetition: repetition,
            timestamp: Date(), metrics: [:], error: nil)
        let run = WorkloadRun(
            parameters: cell.parameters, model: scenario.model, scenarioFile: scenario.file,
            modelFile: scenario.loadedModelFile, firstScreen: scenario.firstScreen,
            directory: options.workDirectory.appendingPathComponent("stacklab-run-\(UUID().uuidString)"),
            sharedDirectory: shared, workDirectory: options.workDirectory, clock: options.clock)
        let workload = scenario.workload
        do {
            result.metrics =
                workload.measuresProcessUsage
                ? try await ProcessUsage.measuring { try await workload.run(run) } : try await workload.run(run)
        } catch {
            // Kept as written (a list stays a list on the terminal); the CSV writes it as one line.
            result.error = "\(error)"
        }
        result.metrics.merge(run.extraMetrics.all) { _, extra in extra }
        // Most workloads remove their folder themselves; a failed one may not have.
        try? FileManager.default.removeItem(at: run.directory)
        return result
    }

    /// An error as one CSV-friendly line: its lines joined, each list item's indentation dropped.
    public nonisolated static func oneLine(_ error: String) -> String {
        error.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
    }
}
