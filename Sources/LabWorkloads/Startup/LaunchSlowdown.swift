import Foundation

/// A test hook, not a feature: makes a launch child's startup path do more work by a given share, so
/// `scripts/startup-gate.sh` can be shown to catch a regression of that size
/// (`STACKLAB_TEST_STARTUP_SLOWDOWN=0.10`: 10% more work). Unset, it does nothing.
///
/// At each milestone (main, first frame, first screen) it spins on the main thread until the CPU time it has
/// burnt is the share of the CPU time the rest of the launch has used so far, as if every step of the startup
/// path had become that much slower: each milestone costs (1 + share) times its CPU time and comes at least
/// that much later. CPU time, not wall time, is the measure: on a busy machine a launch waits for a core for
/// much of its wall time, and slower code does not make that waiting longer.
@MainActor
final class LaunchSlowdown {
    /// The environment variable with the share (a fraction: 0.10 for 10%).
    static let variable = "STACKLAB_TEST_STARTUP_SLOWDOWN"

    private let share: Double
    /// CPU time the hook has burnt, in nanoseconds.
    private var burnt: Double = 0

    /// The hook; nil when the variable is unset or not a positive share.
    init?(environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let text = environment[Self.variable], let share = Double(text), share > 0, share < 10 else { return nil }
        self.share = share
    }

    /// Spins until the hook's CPU time is `share` of the launch's own.
    func milestone() {
        let own = max(0, LaunchClock.cpuNanoseconds(CLOCK_PROCESS_CPUTIME_ID) - burnt)
        let owed = own * share - burnt
        guard owed > 0 else { return }
        burnt += LaunchClock.spin(cpuNanoseconds: owed)
    }
}
