/// How `stacklab` and its child processes end: the statuses scripts and CI read.
public enum ExitStatus: Int32, Sendable {
    /// Everything finished and nothing regressed.
    case ok = 0
    /// A regression, a failed run or check, or an input the fuzzer found failing unexpectedly.
    case regression = 1
    /// Bad input: a usage error, an unreadable or invalid file.
    case badInput = 2
    /// A hang: the fuzzer's watchdog saw an input run too long.
    case hang = 3
}
