import Foundation
import ObjectStack

/// Runs scenarios: expands each matrix, runs every cell (warm-up runs, then the repetitions, cells interleaved
/// within each repetition so machine noise hits them alike), reports progress, and writes a CSV and its
/// environment sidecar per scenario. A run that fails is recorded in its row's `error` cell and the rest go on.
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
        /// Parameter name → accepted values; cells that do not match are skipped.
        public var filters: [String: Set<String>] = [:]
        /// Where CSVs go.
        public var outDirectory: URL
        /// Where run folders (store files) go.
        public var workDirectory = FileManager.default.temporaryDirectory

        /// Creates options writing to `outDirectory`.
        public init(outDirectory: URL, quick: Bool = false, repetitions: Int? = nil, filters: [String: Set<String>] = [:]) {
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
    /// Builds the observer the merge-cost workload attaches to the main context: by default a fetched results
    /// controller over every pod; nil measures merges with nothing watching.
    public var mainContextObserver: MainContextObserverFactory? = MainContextObservers.fetchedResultsController

    /// Stores seeded for startup launches, shared by the launches of one scenario run.
    private let seededStores: SeededStores

    /// Creates a runner.
    public init(options: Options, progress: ProgressReporter = .standardOutput()) {
        self.options = options
        self.progress = progress
        seededStores = SeededStores(
            directory: options.workDirectory.appendingPathComponent("stacklab-seeds-\(UUID().uuidString)"))
    }

    /// The scenario as this runner runs it: shrunk under `--quick`, repetitions overridden.
    public func prepared(_ scenario: Scenario) -> Scenario {
        var scenario = options.quick ? scenario.quick() : scenario
        if let repetitions = options.repetitions { scenario.repetitions = repetitions }
        return scenario
    }

    /// The CSV a scenario's results go to.
    public func csvURL(for scenario: Scenario) -> URL {
        options.outDirectory.appendingPathComponent("\(scenario.name).csv")
    }

    /// Runs one scenario (already `prepared`), writes its CSV and sidecar, and returns every measured run.
    /// - Throws: when the CSV cannot be written, or (`LabError.unsupported`) the scenario is on a model file, which
    ///   the workloads do not take yet; failed runs are results with an `error`.
    public func run(_ scenario: Scenario) async throws -> [RunResult] {
        try scenario.refuseModelFileUntilWorkloadsTakeIt()
        let started = Date()
        let cells = scenario.cells(filters: options.filters)
        let total = cells.count * (scenario.warmup + scenario.repetitions)
        var done = 0
        var results: [RunResult] = []
        let peakResets = ProcessUsage.resetPeak()
        for cell in cells {
            for _ in 0..<scenario.warmup {
                done += 1
                progress.starting(done, of: total, scenario: scenario.name, cell: cell, repetition: 0, warmup: true)
                let result = await runOnce(scenario, cell: cell, repetition: 0)
                progress.finished(done, of: total, result: result, warmup: true)
            }
        }
        for repetition in 1...scenario.repetitions {
            for cell in cells {
                done += 1
                progress.starting(done, of: total, scenario: scenario.name, cell: cell, repetition: repetition, warmup: false)
                let result = await runOnce(scenario, cell: cell, repetition: repetition)
                progress.finished(done, of: total, result: result, warmup: false)
                results.append(result)
            }
        }
        progress.end()
        await seededStores.removeAll()
        if scenario.workload == .engineOverhead { EngineOverheadWorkload.addRatios(&results) }
        if scenario.workload == .startup { DeadlineCrossing.add(to: &results) }
        let url = csvURL(for: scenario)
        try ResultCSV.write(results, scenario: scenario, to: url)
        try EnvironmentRecord.current(scenario: scenario, quick: options.quick, started: started, peakMemoryPerRun: peakResets)
            .write(to: url.deletingPathExtension().appendingPathExtension("env.json"))
        return results
    }

    /// One run on a fresh stack in a fresh folder; never throws: a failure becomes the result's `error`.
    func runOnce(_ scenario: Scenario, cell: RunCell, repetition: Int) async -> RunResult {
        var result = RunResult(
            scenario: scenario.name, workload: scenario.workload, cell: cell, repetition: repetition, timestamp: Date(),
            metrics: [:], error: nil)
        let directory = options.workDirectory.appendingPathComponent("stacklab-run-\(UUID().uuidString)")
        do {
            switch scenario.workload {
            case .startup:
                // Launches are child processes: this process's CPU and memory are not theirs.
                result.metrics = try await StartupWorkload.run(cell.parameters, seeds: seededStores, workDirectory: options.workDirectory)
            case .engineOverhead:
                // No stack design: the workload opens its own engines in the run's folder.
                result.metrics = try await Self.withProcessUsage { try EngineOverheadWorkload.run(cell.parameters, in: directory) }
            case .import, .readWriteMix, .mergeCost, .saveChain:
                result.metrics = try await runOnStack(scenario.workload, cell: cell, in: directory)
            }
        } catch {
            result.error = Self.oneLine(error)
            try? FileManager.default.removeItem(at: directory)
        }
        return result
    }

    /// One run of a workload that drives a stack design in this process.
    private func runOnStack(_ workload: WorkloadKind, cell: RunCell, in directory: URL) async throws -> [Metric: Double] {
        guard let store = cell.parameters["store"].flatMap({ StoreKind(rawValue: $0.description) }),
            let strategy = cell.parameters["strategy"].flatMap({ StrategyKind(rawValue: $0.description) })
        else { throw LabError(.invalidScenario, "the cell names no store or strategy") }
        let stack = try LabStack(strategy: strategy, store: store, model: PodModel.make(), in: directory)
        defer { stack.close() }
        let session = RunSession(stack: stack, parameters: cell.parameters, mainContextObserver: mainContextObserver)
        return try await Self.withProcessUsage {
            let outcome: WorkloadOutcome
            switch workload {
            case .import: outcome = try await ImportWorkload.run(session)
            case .readWriteMix: outcome = try await ReadWriteMixWorkload.run(session)
            case .mergeCost: outcome = try await MergeCostWorkload.run(session)
            case .saveChain: outcome = try await SaveChainWorkload.run(session)
            case .startup, .engineOverhead:
                throw LabError(.unsupported, "\(workload.rawValue) does not run on a stack in this process")
            }
            return metrics(outcome, session: session, stack: stack)
        }
    }

    /// The metrics `body` returns, with the process's CPU time and peak memory over it (a workload with a
    /// measured phase reports that phase's CPU time itself, without its setup).
    private static func withProcessUsage(_ body: () async throws -> [Metric: Double]) async rethrows -> [Metric: Double] {
        ProcessUsage.resetPeak()
        let cpuBefore = ProcessUsage.cpuMilliseconds()
        var metrics = try await body()
        let cpu = ProcessUsage.cpuMilliseconds() - cpuBefore
        metrics[.cpuMilliseconds] = metrics[.cpuMilliseconds] ?? cpu
        metrics[.peakMemoryMegabytes] = ProcessUsage.peakMegabytes()
        return metrics
    }

    private func metrics(_ outcome: WorkloadOutcome, session: RunSession, stack: LabStack) -> [Metric: Double] {
        var metrics = outcome.metrics
        metrics[.wallMilliseconds] = outcome.wallMilliseconds
        metrics[.objects] = Double(outcome.objects)
        if outcome.wallMilliseconds > 0 {
            metrics[.objectsPerSecond] = Double(outcome.objects) / (outcome.wallMilliseconds / 1_000)
        }
        let latencies = session.fetchLatencies
        metrics[.fetches] = Double(latencies.count)
        metrics[.fetchP50Milliseconds] = latencies.percentile(50)
        metrics[.fetchP90Milliseconds] = latencies.percentile(90)
        metrics[.fetchP99Milliseconds] = latencies.percentile(99)
        metrics[.fetchMaxMilliseconds] = latencies.maximum
        metrics[.fetchTotalMilliseconds] = latencies.totalMilliseconds
        if let usage = session.measuredUsage {
            metrics[.cpuMilliseconds] = usage.cpuMilliseconds
            if usage.wallMilliseconds > 0 { metrics[.cpuShare] = usage.cpuMilliseconds / usage.wallMilliseconds }
            metrics[.cpuWaitMilliseconds] = usage.cpuWaitMilliseconds
        }
        if let report = session.mainThread {
            metrics[.mainMaxStallMilliseconds] = report.maxStallMilliseconds
            metrics[.mainHitchMillisecondsPerSecond] = report.hitchMillisecondsPerSecond
        }
        if stack.strategy != .mainOnly {
            let merges = stack.merges.summary
            metrics[.merges] = Double(merges.count)
            metrics[.mergeTotalMilliseconds] = merges.totalMilliseconds
            metrics[.mergeMaxMilliseconds] = merges.maxMilliseconds
        }
        metrics[.storeBytes] = stack.storeBytes.map(Double.init)
        metrics[.storedObjects] = outcome.storedObjects.map(Double.init)
        return metrics
    }

    /// An error as one CSV-friendly line.
    static func oneLine(_ error: any Error) -> String {
        "\(error)".replacingOccurrences(of: "\n", with: " ")
    }
}
