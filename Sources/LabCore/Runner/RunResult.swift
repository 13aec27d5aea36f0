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
    public var runID: String { "c\(cell.index)r\(repetition)" }
    /// When the run started.
    public var timestamp: Date
    /// The metrics that apply to the run, those of the scenario's columns (`Workload.metrics(for:)`) included.
    public var metrics: [Metric: Double]
    /// Why the run failed, as the error says it (a list of reasons on lines of their own); nil when it finished.
    /// The CSV writes it as one line.
    public var error: String?
}
