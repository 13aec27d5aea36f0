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

    /// The header of a scenario's CSV.
    public static func columns(for scenario: Scenario) -> [String] {
        let matrix = matrixColumns(scenario)
        return leadingColumns + matrix + trailingColumns + scenario.workload.columns(for: scenario).map(\.name)
            + ["error"]
    }

    /// The matrix parameters with a column of their own: not the leading ones, nor those the workload reports
    /// as a metric of the same name.
    static func matrixColumns(_ scenario: Scenario) -> [String] {
        let reported = scenario.workload.parametersReportedAsMetrics
        return scenario.axisNames.filter { !leadingColumns.contains($0) && !reported.contains($0) }
    }

    /// One run's cells, in `columns(for:)` order.
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
        row += scenario.workload.columns(for: scenario).map { metric in result.metrics[metric].map(metric.format) ?? ""
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
