import Foundation
import LabCore
import Synchronization

/// The main-thread time spent bringing background saves into the main context, merge by merge.
/// - Note: Thread-safe: merges are logged on the main queue and read by the runner.
public final class MergeLog: Sendable {
    private struct State {
        var count = 0
        var total: Double = 0
        var maximum: Double = 0
    }
    private let state = Mutex(State())

    /// Creates an empty log.
    public init() {}

    /// Logs one merge of `milliseconds`.
    public func record(milliseconds: Double) {
        state.withLock { state in
            state.count += 1
            state.total += milliseconds
            state.maximum = max(state.maximum, milliseconds)
        }
    }

    /// Merges logged, their total and their longest, in milliseconds.
    public var summary: (count: Int, totalMilliseconds: Double, maxMilliseconds: Double) {
        state.withLock { ($0.count, $0.total, $0.maximum) }
    }
}
