import Foundation

/// Shows a comparison as a terminal table and writes it as CSV (for charts of the relative change).
public enum ComparisonReport {
    static let columns = [
        "cell", "metric", "baseline_median", "baseline_n", "current_median", "current_n", "change_pct", "p_value",
        "verdict", "note",
    ]

    static func cells(_ row: ResultComparison.Row) -> [String] {
        [
            row.cellLabel, row.metric, format(row.baselineMedian), String(row.baselineCount), format(row.currentMedian),
            String(row.currentCount), row.relativeChange.map { String(format: "%+.1f", $0 * 100) } ?? "",
            row.pValue.map { String(format: "%.3f", $0) } ?? "", row.verdict.rawValue, row.note,
        ]
    }

    private static func format(_ value: Double?) -> String {
        guard let value else { return "" }
        return String(format: "%.2f", value)
    }

    /// The rows as an aligned table followed by a one-line tally of the verdicts.
    public static func table(_ rows: [ResultComparison.Row], threshold: Double, alpha: Double) -> String {
        let tally = ComparisonVerdict.allCases.map { verdict in
            "\(rows.filter { $0.verdict == verdict }.count) \(verdict.rawValue)"
        }.joined(separator: ", ")
        return TextTable.render(header: columns, rows: rows.map(cells), leftAligned: [0, 1, 8, 9])
            + "\n\n\(tally) (threshold \(String(format: "%g", threshold * 100))%, Mann-Whitney U two-sided, alpha \(alpha))"
    }

    /// The rows as CSV, one per cell and metric, with the cell's identifying columns spelled out; `better`
    /// says which way the metric improves (lower, higher, neutral), as its declaration says.
    public static func csv(_ rows: [ResultComparison.Row], cellColumns: [String], threshold: Double) -> String {
        ResultCSV.render(
            [cellColumns + Array(columns.dropFirst()) + ["threshold_pct", "better"]]
                + rows.map { row in
                    cellColumns.map { row.cell[$0] ?? "" } + Array(cells(row).dropFirst())
                        + [String(format: "%g", threshold * 100), row.polarity.rawValue]
                })
    }
}
