import Foundation

/// Tells the user where a run is: one line rewritten in place on a terminal, plain lines otherwise (a log, CI).
public struct ProgressReporter: Sendable {
    /// Whether output goes to a terminal.
    public let isTerminal: Bool
    private let write: @Sendable (String) -> Void

    /// A reporter on standard output, rewriting its line when standard output is a terminal.
    public static func standardOutput() -> ProgressReporter {
        ProgressReporter(isTerminal: isatty(STDOUT_FILENO) == 1) { text in
            FileHandle.standardOutput.write(Data(text.utf8))
        }
    }

    /// A reporter that hands its text to `write` (for tests, or to stay silent).
    public init(isTerminal: Bool, write: @escaping @Sendable (String) -> Void) {
        self.isTerminal = isTerminal
        self.write = write
    }

    /// Reports that run `done` of `total` is starting; `total` is nil under a budget, which decides as it goes.
    func starting(_ done: Int, of total: Int?, scenario: String, cell: RunCell, repetition: Int, warmup: Bool) {
        guard isTerminal else { return }
        let kind = warmup ? "warm-up" : "rep \(repetition)"
        write("\r\u{1B}[K[\(Self.count(done, of: total))] \(scenario) \(cell.label) \(kind) …")
    }

    /// Reports a finished run.
    func finished(_ done: Int, of total: Int?, result: RunResult, warmup: Bool) {
        let kind = warmup ? "warm-up" : "rep \(result.repetition)"
        let outcome =
            result.error.map { "FAILED: \($0)" }
            ?? String(format: "%.0f ms", result.metrics[.wallMilliseconds] ?? 0)
        let line = "[\(Self.count(done, of: total))] \(result.scenario) \(result.cell.label) \(kind): \(outcome)"
        if isTerminal {
            write("\r\u{1B}[K" + line + (result.error == nil ? "" : "\n"))
        } else {
            write(line + "\n")
        }
    }

    /// `3/36`, or `3` when the total is not known.
    static func count(_ done: Int, of total: Int?) -> String {
        total.map { "\(done)/\($0)" } ?? "\(done)"
    }

    /// Ends the progress line before other output.
    func end() {
        if isTerminal { write("\r\u{1B}[K") }
    }
}
