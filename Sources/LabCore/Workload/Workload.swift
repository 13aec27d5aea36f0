import Foundation

/// What a scenario runs: one kind of measured work, with the parameters it reads, the stores and stack
/// strategies it runs on, the metrics it measures, and a run that returns them. The runner knows workloads only
/// through this protocol; a new workload is a new conforming type in the registry, not a new case in several
/// switches, and a new metric or strategy is a declaration in the workload's own module.
///
/// For example:
/// ```swift
/// extension Metric {
///     static let ticks = Metric("ticks", unit: .count, polarity: .neutral, about: "clock ticks")
/// }
/// struct Sleep: Workload {
///     let name = "sleep"
///     var parameters: [ParameterSpec] { [ParameterSpec("ms", .integer(minimum: 0), default: .integer(1), help: "…")] }
///     let metrics: [Metric] = [.ticks]
///     let headlineMetrics: [Metric] = [.wallMilliseconds, .ticks]
///     func run(_ run: WorkloadRun) async throws -> [Metric: Double] { … }
/// }
/// ```
public protocol Workload: Sendable {
    /// The name scenario files give in `workload:` and the CSV's `workload` column holds.
    var name: String { get }
    /// The stores the workload runs on (the `store` parameter's choices), declared by the module that knows them.
    var stores: [StoreKind] { get }
    /// The concurrency strategies it makes sense on (the `strategy` parameter's choices), declared by its module; empty
    /// when it has no concurrency strategy.
    var strategies: [ConcurrencyStrategy] { get }
    /// Every parameter it reads, with defaults and `--quick` caps.
    var parameters: [ParameterSpec] { get }
    /// The metric columns its runs fill besides those every run has (`Metric.common`), in CSV order.
    var metrics: [Metric] { get }
    /// The metrics the end-of-run summary shows, in order: few enough that the table fits in 120 columns
    /// (`run --wide` shows every metric).
    var headlineMetrics: [Metric] { get }
    /// The charts a report draws of its results; empty leaves the choice to the report (lines of the headline
    /// metrics against a swept number, else bars).
    var charts: [ChartSpec] { get }
    /// Whether the runner adds this process's CPU time and peak memory over the run (false when the measured
    /// work happens in other processes).
    var measuresProcessUsage: Bool { get }
    /// Whether it runs on a model file (`model: App.xcdatamodeld`) as well as on its built-in models; a scenario on
    /// a model file with a workload that does not is refused before any run.
    var acceptsModelFiles: Bool { get }
    /// Whether it imports a model file's objects and so reads a scenario's `import_key:` (which another workload
    /// refuses, rather than ignore it).
    var readsImportKeys: Bool { get }
    /// Whether it runs on a copy of a store file a scenario names beside its model (`store_file:`), instead of a
    /// store it seeds (which another workload refuses, rather than ignore it).
    var readsStoreFiles: Bool { get }
    /// Whether it runs a cell with these parameters (a matrix may name combinations it does not); cells it
    /// does not run are left out of the run and its CSV.
    func accepts(_ parameters: [String: ScenarioValue]) -> Bool
    /// One run of one cell; a thrown error becomes the run's `error` cell. Called on the main actor, since
    /// a main-queue context's blocks run only while the main actor awaits.
    @MainActor func run(_ run: WorkloadRun) async throws -> [Metric: Double]
    /// Adds what only the whole scenario's runs tell (ratios between cells, a fit over sizes) before the CSV
    /// is written.
    func finish(_ results: inout [RunResult])
    /// The workload's metric columns for `scenario`: `metrics`, then any that depend on the scenario (a
    /// startup's migration steps through its model file's versions), which a run fills through
    /// `WorkloadRun.extraMetrics`.
    func metrics(for scenario: Scenario) -> [Metric]
}

extension Workload {
    public var strategies: [ConcurrencyStrategy] { [] }
    public var charts: [ChartSpec] { [] }
    public var measuresProcessUsage: Bool { true }
    public var acceptsModelFiles: Bool { false }
    public var readsImportKeys: Bool { false }
    public var readsStoreFiles: Bool { false }
    public func accepts(_ parameters: [String: ScenarioValue]) -> Bool { true }
    public func finish(_ results: inout [RunResult]) {}
    public func metrics(for scenario: Scenario) -> [Metric] { metrics }

    /// Every metric column of the workload's CSV for `scenario`: those every run has, then its own.
    public func columns(for scenario: Scenario) -> [Metric] {
        let own = metrics(for: scenario)
        return Metric.common.filter { !own.contains($0) } + own
    }

    /// The strategy called `name`, if the workload declares one.
    public func strategy(named name: String) -> ConcurrencyStrategy? { strategies.first { $0.name == name } }

    /// The parameters every stack workload reads first: `store`, `strategy`, `seed` and `ui_fetch_hz`.
    public var stackParameters: [ParameterSpec] {
        [
            ParameterSpec("store", .choice(stores.map(\.name)), default: nil, help: "the store"),
            ParameterSpec("strategy", .choice(strategies.map(\.name)), default: nil, help: "the concurrency strategy"),
            ParameterSpec("seed", .integer(minimum: 0), default: .integer(1), help: "seed of the synthetic data"),
            ParameterSpec(
                "ui_fetch_hz", .number(above: 0), default: .integer(20),
                help: "first-screen fetches per second on the main context, as a list on screen refreshes"),
        ]
    }
}
