import Foundation
import LabCore

/// Milliseconds on the monotonic clock every process of the machine shares, so a child can measure from the
/// moment its parent started it (passed in `STACKLAB_LAUNCH_T0`).
public enum LaunchClock {
    /// The environment variable carrying the parent's start time, in nanoseconds.
    public static let startVariable = "STACKLAB_LAUNCH_T0"

    /// Now, in nanoseconds of CLOCK_MONOTONIC.
    public static func nowNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Milliseconds from `start` to now.
    public static func milliseconds(since start: UInt64) -> Double {
        Double(nowNanoseconds() &- start) / 1_000_000
    }

    /// The process's CPU time so far (every thread, user + system), in milliseconds.
    public static func processCPUMilliseconds() -> Double {
        cpuNanoseconds(CLOCK_PROCESS_CPUTIME_ID) / 1_000_000
    }

    /// The CPU time of a CPU-time clock, in nanoseconds.
    static func cpuNanoseconds(_ clock: clockid_t) -> Double {
        var time = timespec()
        clock_gettime(clock, &time)
        return Double(time.tv_sec) * 1e9 + Double(time.tv_nsec)
    }

    /// Spins on the calling thread until it has used `nanoseconds` of CPU time (the slowdown test hooks' work).
    /// - Returns: the CPU time spent, in nanoseconds: at least `nanoseconds`.
    @discardableResult
    static func spin(cpuNanoseconds nanoseconds: Double) -> Double {
        let begin = cpuNanoseconds(CLOCK_THREAD_CPUTIME_ID)
        var spent: Double = 0
        while spent < nanoseconds { spent = cpuNanoseconds(CLOCK_THREAD_CPUTIME_ID) - begin }
        return spent
    }
}
