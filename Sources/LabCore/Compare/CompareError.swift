import Foundation

/// Why a comparison could not be made: the inputs, not the results, are wrong (exit status 2).
public enum CompareError: Error, Equatable, CustomStringConvertible {
    /// The file could not be read.
    case unreadable(String, reason: String)
    /// The file is not a CSV with a header row and rows of the header's width.
    case malformed(String, line: Int, reason: String)
    /// A metric asked for is not a column of the file.
    case unknownMetric(String, file: String, available: [String])
    /// The two files do not identify cells by the same columns.
    case cellColumnsDiffer(baseline: [String], current: [String])
    /// No cell appears in both files.
    case noCommonCells
    /// The threshold is not a percentage.
    case badThreshold(String)
    /// No cell of the file has the reference's value.
    case noReference(String, file: String)
    /// The confidence is not a percentage from 50% to 99.99%.
    case badConfidence(String)
    /// The gate found no pair of runs with a value of the metric on both sides.
    case noPairs(String)

    public var description: String {
        switch self {
        case .unreadable(let file, let reason):
            "\(file): cannot read the result file: \(reason)"
        case .malformed(let file, let line, let reason):
            "\(file):\(line): not a result CSV: \(reason)"
        case .unknownMetric(let metric, let file, let available):
            "\(file): no metric column '\(metric)'; metric columns are \(available.joined(separator: ", "))"
        case .cellColumnsDiffer(let baseline, let current):
            "the files name cells by different columns: baseline \(baseline.joined(separator: ",")), current \(current.joined(separator: ","))"
        case .noCommonCells:
            "no matrix cell appears in both files"
        case .noPairs(let metric):
            "no pairs of \(metric) to compare: no cell has a run with a value on both sides"
        case .noReference(let reference, let file):
            "\(file): no cell has \(reference) to compare the others with"
        case .badConfidence(let text):
            "confidence '\(text)' is not a percentage such as 95% (expected 50% to 99.99%, or a fraction such as 0.95)"
        case .badThreshold(let text):
            "threshold '\(text)' is not a percentage such as 10% (expected a number from 0 to 1000, '%' optional)"
        }
    }
}
