import Foundation

/// What a scenario runs: one kind of measured work, with the parameters it reads, the stores and stack
/// designs it runs on, and a run that returns metrics. The runner knows workloads only through this
/// protocol; a new workload is a new conforming type in the registry, not a new case in several switches.
///
/// For example:
/// ```swift
/// struct Sleep: Workload {
///     let name = "sleep"
///     var parameters: [ParameterSpec] { [ParameterSpec("ms", .integer(minimum: 0), default: .integer(1), help: "…")] }
///     let summaryMetrics: [Metric] = [.wallMilliseconds]
///     func run(_ run: WorkloadRun) async throws -> [Metric: Double] { … }
/// }
/// ```
public protocol Workload: Sendable {
    /// The name scenario files give in `workload:` and the CSV's `workload` column holds.
    var name: String { get }
    /// The stores the workload runs on (the `store` parameter's choices).
    var stores: [StoreKind] { get }
    /// The stack designs it makes sense on (the `strategy` parameter's choices); empty when it has no stack design.
    var strategies: [StrategyKind] { get }
    /// Every parameter it reads, with defaults and `--quick` caps.
    var parameters: [ParameterSpec] { get }
    /// The metrics the end-of-run summary shows, in order.
    var summaryMetrics: [Metric] { get }
    /// Matrix parameters reported in the metric column of the same name (so the CSV has the column once).
    var parametersReportedAsMetrics: Set<String> { get }
    /// Whether the runner adds this process's CPU time and peak memory over the run (false when the measured
    /// work happens in other processes).
    var measuresProcessUsage: Bool { get }
    /// Whether it runs on a model file (`model: App.xcdatamodeld`) as well as on the built-in pods; a scenario on
    /// a model file with a workload that does not is refused before any run.
    var acceptsModelFiles: Bool { get }
    /// Whether it imports a model file's objects and so reads a scenario's `import_key:` (which another workload
    /// refuses, rather than ignore it).
    var readsImportKeys: Bool { get }
    /// Whether it runs a cell with these parameters (a matrix may name combinations it does not); cells it
    /// does not run are left out of the run and its CSV.
    func accepts(_ parameters: [String: ScenarioValue]) -> Bool
    /// One run of one cell; a thrown error becomes the run's `error` cell. Called on the main actor, since
    /// a main-queue context's blocks run only while the main actor awaits.
    @MainActor func run(_ run: WorkloadRun) async throws -> [Metric: Double]
    /// Adds what only the whole scenario's runs tell (ratios between cells, a fit over sizes) before the CSV
    /// is written.
    func finish(_ results: inout [RunResult])
    /// Columns of the workload's own after the metric columns, which depend on the scenario (a startup's
    /// migration steps through its model file's versions); a run fills them through `WorkloadRun.extraMetrics`.
    func extraColumns(for scenario: Scenario) -> [String]
}

extension Workload {
    public var stores: [StoreKind] { StoreKind.allCases }
    public var strategies: [StrategyKind] { StrategyKind.allCases }
    public var parametersReportedAsMetrics: Set<String> { [] }
    public var measuresProcessUsage: Bool { true }
    public var acceptsModelFiles: Bool { false }
    public var readsImportKeys: Bool { false }
    public func accepts(_ parameters: [String: ScenarioValue]) -> Bool { true }
    public func finish(_ results: inout [RunResult]) {}
    public func extraColumns(for scenario: Scenario) -> [String] { [] }

    /// The parameters every stack workload reads first: `store`, `strategy`, `seed` and `ui_fetch_hz`.
    public var stackParameters: [ParameterSpec] {
        [
            ParameterSpec("store", .choice(stores.map(\.rawValue)), default: nil, help: "the store"),
            ParameterSpec("strategy", .choice(strategies.map(\.rawValue)), default: nil, help: "the stack design"),
            ParameterSpec("seed", .integer(minimum: 0), default: .integer(1), help: "seed of the synthetic data"),
            ParameterSpec(
                "ui_fetch_hz", .number(above: 0), default: .integer(20),
                help: "first-screen fetches per second on the main context, as a list on screen refreshes"),
        ]
    }
}
