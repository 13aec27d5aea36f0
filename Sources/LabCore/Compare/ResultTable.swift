import CSV
import Foundation

/// A result CSV read back for comparison: its header, its rows, and which columns identify a matrix cell
/// and which hold metrics.
///
/// The lab writes identifying columns first (scenario, workload, store, strategy, matrix parameters,
/// repetition, run id, timestamp) and metric columns after `timestamp`; files without a `timestamp`
/// column (other tools' output) are read by name instead: a metric is a column named with a unit suffix.
public struct ResultTable: Sendable {
    /// Where the table was read from, for messages.
    public let source: String
    /// Column names in file order.
    public let columns: [String]
    /// Rows as cell strings, each as long as `columns`.
    public let rows: [[String]]
    /// The `.env.json` sidecar beside the file, when it has one that reads: its environment and the declarations
    /// of its metrics.
    public var environment: EnvironmentRecord?
    /// Why the sidecar beside the file could not be read, when there is one that cannot.
    public var sidecarProblem: String?

    /// The declarations of the metric columns, by name, from the sidecar; empty when it has none.
    public var declarations: [String: Metric] {
        Dictionary((environment?.metrics ?? []).map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The metric columns the sidecar does not declare: `compare` judges them neutral.
    public var undeclaredMetrics: [String] {
        let declared = declarations
        return metricColumns.filter { declared[$0] == nil }
    }

    /// Columns that name a run, not a cell: several repetitions of one cell differ only in them.
    public static let runColumns: Set<String> = ["repetition", "run", "run_id", "timestamp"]
    /// Name endings that mark a metric column when a file has no `timestamp` column.
    public static let unitSuffixes = ["_ms", "_us", "_ns", "_s", "_per_s", "_bytes", "_kb", "_mb", "_pct", "_ratio"]

    /// Reads a CSV file with a header row, and the `.env.json` sidecar beside it when there is one.
    public init(contentsOf url: URL) throws {
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw CompareError.unreadable(url.path, reason: FileReadFailure(error).description)
        }
        try self.init(text: text, source: url.path)
        let sidecar = EnvironmentRecord.sidecar(of: url)
        if FileManager.default.fileExists(atPath: sidecar.path) {
            do {
                environment = try EnvironmentRecord.read(from: sidecar)
            } catch {
                sidecarProblem = "\(sidecar.path): not a sidecar the lab wrote: \(error)"
            }
        }
    }

    /// Reads CSV text with a header row; `source` names it in errors.
    public init(text: String, source: String) throws {
        self.source = source
        let reader: CSVReader
        do {
            reader = try CSVReader(string: text, hasHeaderRow: true)
        } catch {
            throw CompareError.malformed(source, line: 1, reason: "\(error)")
        }
        guard let header = reader.headerRow, !header.isEmpty, header != [""] else {
            throw CompareError.malformed(source, line: 1, reason: "no header row")
        }
        var rows: [[String]] = []
        var line = 1
        while let row = reader.next() {
            line += 1
            if row == [""] { continue }
            guard row.count == header.count else {
                throw CompareError.malformed(
                    source, line: line, reason: "\(row.count) fields where the header has \(header.count)")
            }
            rows.append(row)
        }
        if let error = reader.error {
            throw CompareError.malformed(source, line: line + 1, reason: "\(error)")
        }
        columns = header
        self.rows = rows
    }

    /// The metric columns: those after `timestamp` (except `error`); in a file without one (a comparison, another
    /// tool's CSV), those its sidecar declares, else those named with a unit suffix.
    public var metricColumns: [String] {
        if let end = columns.firstIndex(of: "timestamp") {
            return columns[(end + 1)...].filter { $0 != "error" }
        }
        let declared = declarations
        if !declared.isEmpty { return columns.filter { declared[$0] != nil } }
        return columns.filter { name in Self.unitSuffixes.contains { name.hasSuffix($0) } }
    }

    /// The columns that together name a matrix cell.
    public func cellColumns(metrics: [String]) -> [String] {
        // Before `timestamp` every column is a parameter, even one named like a metric (startup's `objects` in a file
        // written before the CSV renamed such a metric `objects_measured`):
        // dropping it merged the cells of different sizes.
        guard let end = columns.firstIndex(of: "timestamp") else {
            let metricSet = Set(metrics)
            return columns.filter { !Self.runColumns.contains($0) && !metricSet.contains($0) && $0 != "error" }
        }
        return columns[..<end].filter { !Self.runColumns.contains($0) && $0 != "error" }
    }

    /// The positions of the columns that name a matrix cell. Unlike `cellColumns(metrics:)` it goes by position
    /// where the file has a `timestamp`, so a parameter named like a metric (`objects`, in a file written before
    /// the CSV renamed such a metric) still names the cell.
    public var cellColumnIndexes: [Int] {
        guard let end = columns.firstIndex(of: "timestamp") else {
            let metrics = Set(metricColumns)
            return columns.indices.filter { !metrics.contains(columns[$0]) && !Self.runColumns.contains(columns[$0]) }
        }
        return columns[..<end].indices.filter { !Self.runColumns.contains(columns[$0]) && columns[$0] != "error" }
    }

    /// The value of `column` in `row`, if the file has that column.
    public func value(_ column: String, in row: [String]) -> String? {
        columns.firstIndex(of: column).map { row[$0] }
    }
}
