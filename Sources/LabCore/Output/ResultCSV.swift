import CSV
import Foundation

/// The lab's CSV: one row per run, identifying columns first, then the metric columns named with their unit —
/// those every run has (`Metric.common`), then the workload's own for the scenario (`Workload.metrics(for:)`) —
/// then `error`. An empty cell means the metric does not apply to the run (or the run failed before it). The
/// metrics' declarations (unit, polarity, group) go in the `.env.json` sidecar beside it.
public enum ResultCSV {
    /// The identifying columns before the matrix parameters.
    public static let leadingColumns = ["scenario", "workload", "store", "strategy"]
    /// The identifying columns after the matrix parameters.
    public static let trailingColumns = ["repetition", "run_id", "timestamp"]

    /// The suffix of a metric column whose name a parameter column has: startup's `objects` metric beside its
    /// `objects` matrix parameter is written `objects_measured`.
    public static let clashSuffix = "_measured"

    /// The header of a scenario's CSV: one column per name.
    public static func columns(for scenario: Scenario) -> [String] {
        identifyingColumns(scenario) + metricDeclarations(for: scenario).map(\.name) + ["error"]
    }

    /// The columns that say which run of which cell a row is: the leading ones, the matrix parameters, the
    /// trailing ones.
    static func identifyingColumns(_ scenario: Scenario) -> [String] {
        leadingColumns + matrixColumns(scenario) + trailingColumns
    }

    /// The matrix parameters with a column of their own (all but the leading ones).
    static func matrixColumns(_ scenario: Scenario) -> [String] {
        scenario.axisNames.filter { !leadingColumns.contains($0) }
    }

    /// The name of `metric`'s column in `scenario`'s CSV: its own, unless an identifying column has it (a matrix
    /// parameter of the same name), when it gets ``clashSuffix``. The parameter keeps the name, since it names
    /// the cell (`--filter`, charts' axes, `compare`); the rename is the CSV's, so no workload has to avoid a name.
    public static func columnName(of metric: Metric, in scenario: Scenario) -> String {
        let taken = Set(identifyingColumns(scenario) + ["error"])
        var name = metric.name
        while taken.contains(name) { name += clashSuffix }
        return name
    }

    /// The declarations of the scenario's metric columns, in CSV order, each under its column's name
    /// (`columnName(of:in:)`): what the sidecar records, so `compare` and `report` judge the renamed column too.
    public static func metricDeclarations(for scenario: Scenario) -> [Metric] {
        scenario.workload.columns(for: scenario).map { $0.renamed(columnName(of: $0, in: scenario)) }
    }

    /// One run's cells, in `columns(for:)` order (a renamed metric column holds the metric it was named for).
    static func cells(_ result: RunResult, scenario: Scenario) -> [String] {
        // The declaration the workload gives for the scenario formats the cell (the result's key may be the
        // same metric declared elsewhere).
        let formatter = ISO8601DateFormatter()
        let matrix = matrixColumns(scenario)
        let parameters = result.cell.parameters
        var row = [
            result.scenario, result.workload, parameters["store"]?.description ?? "",
            parameters["strategy"]?.description ?? "",
        ]
        row += matrix.map { parameters[$0]?.description ?? "" }
        row += [String(result.repetition), result.runID, formatter.string(from: result.timestamp)]
        row += scenario.workload.columns(for: scenario).map { metric in
            result.metrics[metric].map(metric.format) ?? ""
        }
        row.append(result.error.map(ScenarioRunner.oneLine) ?? "")
        return row
    }

    /// The whole file: header and one row per run, quoted as RFC 4180 wants (CSV.swift writes it).
    public static func text(_ results: [RunResult], scenario: Scenario) -> String {
        render([columns(for: scenario)] + results.map { cells($0, scenario: scenario) }) + "\n"
    }

    /// Rows as RFC 4180 CSV text (cells quoted where needed), lines separated by newlines.
    public static func render(_ rows: [[String]]) -> String {
        let stream = OutputStream(toMemory: ())
        // Writing to memory cannot fail; a failure here would be a bug in the writer.
        let writer = try! CSVWriter(stream: stream)
        for row in rows { try! writer.write(row: row) }
        writer.stream.close()
        let data = stream.property(forKey: .dataWrittenToMemoryStreamKey) as? Data ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// Parses CSV text (RFC 4180 quoting) into rows of cells, the header first.
    public static func parse(_ text: String) -> [[String]] {
        guard let reader = try? CSVReader(string: text, hasHeaderRow: false) else { return [] }
        var rows: [[String]] = []
        while let row = reader.next() {
            if row != [""] { rows.append(row) }
        }
        return rows
    }

    /// Writes the CSV atomically (a half-written file never replaces a good one).
    public static func write(_ results: [RunResult], scenario: Scenario, to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text(results, scenario: scenario).utf8).write(to: url, options: .atomic)
    }
}
