import Synchronization

/// Values a run reports in columns that depend on the scenario (`Workload.metrics(for:)`), such as a launch's
/// time per migration step: columns the workload declares from the scenario, so their number can follow its
/// model file.
///
/// For example, in a workload's run:
/// ```swift
/// run.extraMetrics.set(12.5, for: .migrationStep(from: 3, to: 4))
/// ```
/// - Note: Thread-safe.
public final class ExtraMetrics: Sendable {
    private let values = Mutex<[Metric: Double]>([:])

    /// An empty set of values.
    public init() {}

    /// Sets the value of `metric`.
    public func set(_ value: Double, for metric: Metric) {
        values.withLock { $0[metric] = value }
    }

    /// Every value set, by metric.
    public var all: [Metric: Double] { values.withLock { $0 } }
}
