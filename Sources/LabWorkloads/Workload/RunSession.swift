import Foundation
import LabCore
import ObjectStack

/// What a workload gets for one run: the stack, the cell's parameters, and the main-thread instruments.
///
/// The session owns the 60 Hz meter and, while it measures, runs the UI's first-screen fetch on the main
/// context at `ui_fetch_hz`, recording each fetch's latency.
/// - Note: Not thread-safe: use it on the main actor.
@MainActor
public final class RunSession {
    /// The stack under test.
    public let stack: LabStack
    /// The run: the cell's parameters, the model, the folders, the clock.
    public let run: WorkloadRun
    /// The cell's parameters, defaults filled in.
    public var parameters: [String: ScenarioValue] { run.parameters }
    /// Latencies of the main context's fetches.
    public var fetchLatencies = LatencyRecorder()
    /// Hears the top pod's name after each first-screen fetch of pods (the change-to-screen timing).
    var firstScreenShown: ((String?) -> Void)?
    private var meter: MainThreadMeter?
    private(set) var mainThread: MainThreadMeter.Report?
    /// Over the measured phase, in milliseconds: the process's CPU time, its threads' time waiting for a core
    /// (nil where the kernel does not say), and the wall time; nil until `measure` returns.
    private(set) var measuredUsage: (cpuMilliseconds: Double, cpuWaitMilliseconds: Double?, wallMilliseconds: Double)?

    /// For a scenario on a model file: its population and first screen; nil on the built-in pods.
    let modelFile: ModelFileRun?

    /// - Throws: for a model file, what planning its population or resolving its first screen throws.
    init(stack: LabStack, run: WorkloadRun) throws {
        self.stack = stack
        self.run = run
        modelFile = try ModelFileRun(run)
    }

    // MARK: - Parameters

    /// An integer parameter (validated when the scenario was read).
    public func integer(_ name: String) -> Int { run.integer(name) }
    /// A number parameter.
    public func number(_ name: String) -> Double { run.number(name) }
    /// A text parameter, if set.
    public func text(_ name: String) -> String? {
        if case .text(let value)? = parameters[name] { return value }
        return nil
    }
    /// A boolean parameter.
    public func flag(_ name: String) -> Bool { run.flag(name) }
    /// The data seed.
    public var seed: UInt64 { run.seed }

    // MARK: - Measuring

    /// The UI's first screen: 50 pods by name.
    public static func firstScreenRequest() -> FetchRequest<Pod> {
        var request = FetchRequest<Pod>(entityName: "Pod")
        request.sortDescriptors = [SortKey("name")]
        request.fetchLimit = 50
        return request
    }

    /// Starts the 60 Hz meter and the first-screen fetches.
    public func startMeasuring() {
        let main = stack.main
        let request = Self.firstScreenRequest()
        let screen = modelFile?.screen
        let interval = 1 / max(number("ui_fetch_hz"), 0.001)
        var due = Date.timeIntervalSinceReferenceDate
        let meter = MainThreadMeter(clock: run.clock) { [weak self] in
            let now = Date.timeIntervalSinceReferenceDate
            guard let self, now >= due else { return }
            due = max(due + interval, now)
            if let screen {
                self.timedFetch(screen, offset: 0, on: main)
            } else {
                self.timedFetch(request, on: main)
            }
        }
        self.meter = meter
        meter.start()
    }

    /// Runs a main-context fetch now, recording its latency; a failed fetch is recorded as the run's error by
    /// the workload's own final count, so it is not thrown from a tick.
    func timedFetch(_ request: FetchRequest<Pod>, on main: ManagedObjectContext) {
        let (_, milliseconds) = run.clock.measure {
            let rows = main.performAndWait { try? main.fetch(request) }
            for pod in rows ?? [] { _ = pod.name }  // what a list shows: the values, not just faults
            firstScreenShown?(rows?.first?.name)
        }
        fetchLatencies.record(milliseconds: milliseconds)
    }

    /// Runs a model file's first-screen fetch from `offset` now, reading each row's shown attribute, and records
    /// its latency.
    func timedFetch(_ screen: FirstScreen, offset: Int, on main: ManagedObjectContext) {
        let request = screen.request(offset: offset)
        let key = screen.shownKey
        let (_, milliseconds) = run.clock.measure {
            let rows = main.performAndWait { try? main.fetch(request) }
            if let key { for object in rows ?? [] { _ = object.value(forKey: key) } }
        }
        fetchLatencies.record(milliseconds: milliseconds)
    }

    /// Stops the meter.
    public func stopMeasuring() {
        mainThread = meter?.stop()
        meter = nil
    }

    /// Runs the measured phase: the first-screen fetches and the main-thread meter run while `body` does and
    /// stop when it returns or throws. `body` gets the phase's start on the run's clock, in milliseconds (for
    /// deadlines). The process's CPU time
    /// over the phase is kept for `cpu_ms`, `cpu_share` and `cpu_wait_ms`.
    /// - Returns: what `body` returned, and the phase's wall time in milliseconds.
    public func measure<T>(_ body: (Double) async throws -> T) async rethrows -> (value: T, milliseconds: Double) {
        startMeasuring()
        defer { stopMeasuring() }
        let clock = run.clock
        let cpu = ProcessUsage.cpuMilliseconds()
        let waited = ProcessUsage.runQueueMilliseconds()
        let start = clock.nowMilliseconds()
        let value = try await body(start)
        let wall = clock.nowMilliseconds() - start
        let waitedAfter = ProcessUsage.runQueueMilliseconds()
        let cpuWait = waited.flatMap { before in waitedAfter.map { max(0, $0 - before) } }
        measuredUsage = (ProcessUsage.cpuMilliseconds() - cpu, cpuWait, wall)
        return (value, wall)
    }

    // MARK: - Metrics

    /// The run's metrics: the workload's own, and what the session's instruments and the stack measured.
    func metrics(_ outcome: WorkloadOutcome) -> [Metric: Double] {
        var metrics = outcome.metrics
        metrics[.wallMilliseconds] = outcome.wallMilliseconds
        metrics[.objects] = Double(outcome.objects)
        if outcome.wallMilliseconds > 0 {
            metrics[.objectsPerSecond] = Double(outcome.objects) / (outcome.wallMilliseconds / 1_000)
        }
        let latencies = fetchLatencies
        metrics[.fetches] = Double(latencies.count)
        metrics[.fetchP50Milliseconds] = latencies.percentile(50)
        metrics[.fetchP90Milliseconds] = latencies.percentile(90)
        metrics[.fetchP99Milliseconds] = latencies.percentile(99)
        metrics[.fetchMaxMilliseconds] = latencies.maximum
        metrics[.fetchTotalMilliseconds] = latencies.totalMilliseconds
        if let usage = measuredUsage {
            metrics[.cpuMilliseconds] = usage.cpuMilliseconds
            if usage.wallMilliseconds > 0 { metrics[.cpuShare] = usage.cpuMilliseconds / usage.wallMilliseconds }
            metrics[.cpuWaitMilliseconds] = usage.cpuWaitMilliseconds
        }
        if let report = mainThread {
            metrics[.mainMaxStallMilliseconds] = report.maxStallMilliseconds
            metrics[.mainHitchMillisecondsPerSecond] = report.hitchMillisecondsPerSecond
        }
        if stack.strategy.hasBackgroundContexts {
            let merges = stack.merges.summary
            metrics[.merges] = Double(merges.count)
            metrics[.mergeTotalMilliseconds] = merges.totalMilliseconds
            metrics[.mergeMaxMilliseconds] = merges.maxMilliseconds
        }
        metrics[.storeBytes] = stack.storeBytes.map(Double.init)
        metrics[.storedObjects] = outcome.storedObjects.map(Double.init)
        return metrics
    }
}

/// What a workload reports beyond the session's instruments.
public struct WorkloadOutcome: Sendable {
    /// Wall time of the measured phase, in milliseconds.
    public var wallMilliseconds: Double
    /// Objects the workload wrote or changed in the measured phase.
    public var objects: Int
    /// Pods in the store at the end.
    public var storedObjects: Int?
    /// Metrics only this workload reports, such as the import's phases.
    public var metrics: [Metric: Double] = [:]
}
