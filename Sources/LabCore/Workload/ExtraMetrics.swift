import Synchronization

/// Values a run reports in columns of its workload's own (`Workload.extraColumns(for:)`), such as a launch's time
/// per migration step: columns the workload names from the scenario, so their number can follow its model file.
///
/// For example, in a workload's run:
/// ```swift
/// run.extraMetrics.set(12.5, for: "migration_3_to_4_ms")
/// ```
/// - Note: Thread-safe.
public final class ExtraMetrics: Sendable {
    private let values = Mutex<[String: Double]>([:])

    /// An empty set of values.
    public init() {}

    /// Sets the value of `column`.
    public func set(_ value: Double, for column: String) {
        values.withLock { $0[column] = value }
    }

    /// Every value set, by column.
    public var all: [String: Double] { values.withLock { $0 } }
}
