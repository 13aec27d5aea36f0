import Foundation
import Synchronization

/// Where the lab reads time: every measured duration goes through one of these, so timing logic can be
/// tested with a `ManualClock` and no test depends on how fast the machine is.
public protocol LabClock: Sendable {
    /// Now, in milliseconds since a fixed start of the clock's choosing (monotonic: never goes back).
    func nowMilliseconds() -> Double
}

extension LabClock {
    /// Milliseconds from `start` (a `nowMilliseconds()` reading) to now.
    public func milliseconds(since start: Double) -> Double { nowMilliseconds() - start }

    /// Runs `body` and returns its value and how long it took, in milliseconds.
    public func measure<T>(_ body: () throws -> T) rethrows -> (value: T, milliseconds: Double) {
        let start = nowMilliseconds()
        let value = try body()
        return (value, nowMilliseconds() - start)
    }
}

/// The machine's monotonic clock (`ContinuousClock`): the clock of every real run.
public struct SystemClock: LabClock {
    private static let origin = ContinuousClock.now

    /// Creates the clock.
    public init() {}

    public func nowMilliseconds() -> Double {
        Self.origin.duration(to: ContinuousClock.now).milliseconds
    }
}

/// A clock that moves only when told to: for tests of timing logic (deadlines, rates, stalls).
public final class ManualClock: LabClock {
    private let now = Mutex(0.0)

    /// Creates a clock reading `start` milliseconds.
    public init(start: Double = 0) {
        now.withLock { $0 = start }
    }

    public func nowMilliseconds() -> Double { now.withLock { $0 } }

    /// Moves the clock forward by `milliseconds`.
    public func advance(by milliseconds: Double) {
        now.withLock { $0 += milliseconds }
    }
}
