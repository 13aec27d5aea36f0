import Foundation

/// One run of one matrix cell: its identity, its metrics, and the error that stopped it, if any.
public struct RunResult: Sendable {
    /// The scenario's name.
    public var scenario: String
    /// The workload's name.
    public var workload: String
    /// The matrix cell.
    public var cell: RunCell
    /// The repetition, from 1.
    public var repetition: Int
    /// `c<cell>r<repetition>`: unique within the scenario's CSV.
    public var runID: String { Self.runID(cell: cell.index, repetition: repetition) }
    /// When the run started.
    public var timestamp: Date
    /// The metrics that apply to the run, those of the scenario's columns (`Workload.metrics(for:)`) included.
    public var metrics: [Metric: Double]
    /// Why the run failed, as the error says it (a list of reasons on lines of their own); nil when it finished.
    /// The CSV writes it as one line.
    public var error: String?

    /// The run id of a cell's repetition (`c3r2`); repetition 0 is a warm-up.
    public static func runID(cell: Int, repetition: Int) -> String { "c\(cell)r\(repetition)" }

    /// A run id's cell index and repetition (`c3r2` → 3, 2); nil for anything else.
    public static func parseRunID(_ id: some StringProtocol) -> (cell: Int, repetition: Int)? {
        guard id.first == "c" else { return nil }
        let parts = id.dropFirst().split(separator: "r", omittingEmptySubsequences: false)
        guard parts.count == 2, let cell = Int(parts[0]), let repetition = Int(parts[1]) else { return nil }
        return (cell, repetition)
    }
}
