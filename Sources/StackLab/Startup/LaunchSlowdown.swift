import Foundation

/// A test hook, not a feature: makes a launch child slower by a given share, so `scripts/startup-gate.sh` can be
/// shown to catch a regression of that size (`STACKLAB_TEST_STARTUP_SLOWDOWN=0.10` makes every milestone of
/// the launch about 10% later). Unset, it does nothing.
///
/// At each milestone (main, first frame, store ready, first screen) it busy-waits until the delay injected so
/// far is the share of the time the launch took without it, so each milestone lands at about (1 + share) times
/// its unhooked time, as if the whole startup path had become that much slower. Busy-waiting on the monotonic
/// clock, not sleeping, keeps the main thread as occupied as slower code would.
@MainActor
final class LaunchSlowdown {
    /// The environment variable with the share (a fraction: 0.10 for 10%).
    static let variable = "STACKLAB_TEST_STARTUP_SLOWDOWN"

    private let share: Double
    private let start: UInt64
    private var injected: UInt64 = 0

    /// The hook for a launch that started at `start`; nil when the variable is unset or not a positive share.
    init?(start: UInt64, environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let text = environment[Self.variable], let share = Double(text), share > 0, share < 10 else { return nil }
        self.share = share
        self.start = start
    }

    /// Busy-waits until this milestone is `share` later than it would have been.
    func milestone() {
        let elapsed = LaunchClock.nowNanoseconds() &- start
        let unhooked = elapsed &- min(injected, elapsed)
        let owed = UInt64(Double(unhooked) * share)
        guard owed > injected else { return }
        let until = LaunchClock.nowNanoseconds() + (owed - injected)
        while LaunchClock.nowNanoseconds() < until {}
        injected = owed
    }
}
