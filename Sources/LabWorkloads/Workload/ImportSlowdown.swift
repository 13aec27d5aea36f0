import Foundation

/// A test hook, not a feature: makes the import path do more work by a given share, so `stacklab compare
/// --paired` can be shown to name a slowdown of that size (`STACKLAB_TEST_IMPORT_SLOWDOWN=0.10`: 10% more work;
/// `scripts/compare-trials.sh slowdown` sets it on the current build). Unset, it does nothing. It is the startup
/// gate's hook (`LaunchSlowdown`) made for the import.
///
/// Once the import is over (the main queue has merged the last save), it spins until the CPU time it burns is the
/// share of the CPU time the process used since the import began: the import's CPU time grows by the share, and its
/// wall time by about as much. It burns once, at the end, rather than after each save: spinning between saves
/// changed how the importer and the main queue's merges overlap, and in three paired trials at 10% the strategies
/// with background contexts grew by 0.5-7% (main-only and nested contexts by 9-16%); burning at the end, every
/// strategy grew by 11-13% (the concurrency scenario's 10,000-batch cells, 3 rounds, 2026-11-29). CPU time,
/// not wall time, is the measure: on a busy machine the import waits for a core for much of its wall time, and
/// slower code does not make that waiting longer.
final class ImportSlowdown: Sendable {
    /// The environment variable with the share (a fraction: 0.10 for 10%).
    static let variable = "STACKLAB_TEST_IMPORT_SLOWDOWN"

    private let share: Double
    /// The process's CPU time when the import began, in nanoseconds.
    private let start: Double

    /// The hook, starting its count now; nil when the variable is unset or not a positive share.
    init?(environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let text = environment[Self.variable], let share = Double(text), share > 0, share < 10 else { return nil }
        self.share = share
        start = LaunchClock.cpuNanoseconds(CLOCK_PROCESS_CPUTIME_ID)
    }

    /// Spins until the hook's CPU time is `share` of the import's own since it began. Call it once, at the end.
    func burnShare() {
        let own = max(0, LaunchClock.cpuNanoseconds(CLOCK_PROCESS_CPUTIME_ID) - start)
        LaunchClock.spin(cpuNanoseconds: own * share)
    }
}
