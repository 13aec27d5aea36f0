import Foundation

/// The gate's verdicts for people and tools: a terminal table, a CSV row per metric, and a Markdown summary
/// for a pull request (`$GITHUB_STEP_SUMMARY`).
public enum GateReport {
    static let columns = ["metric", "pairs", "pooled_change_pct", "p_value", "verdict", "threshold_pct", "alpha"]

    static func cells(_ row: PooledComparison.Row, threshold: Double, alpha: Double) -> [String] {
        [
            row.metric, String(row.pairs), String(format: "%+.1f", row.change * 100),
            String(format: "%.4f", row.pValue),
            row.regressed ? "regressed" : "unchanged", String(format: "%g", threshold * 100),
            String(format: "%g", alpha),
        ]
    }

    /// The pooled rows as an aligned table.
    public static func table(_ rows: [PooledComparison.Row], threshold: Double, alpha: Double) -> String {
        TextTable.render(
            header: columns, rows: rows.map { cells($0, threshold: threshold, alpha: alpha) }, leftAligned: [0, 4])
    }

    /// The pooled rows as CSV, one per metric.
    public static func csv(_ rows: [PooledComparison.Row], threshold: Double, alpha: Double) -> String {
        ResultCSV.render([columns] + rows.map { cells($0, threshold: threshold, alpha: alpha) }) + "\n"
    }

    /// The whole verdict as Markdown: a heading with it, the pooled table, then the per-cell comparison of
    /// `cellRows` (regressions first).
    public static func markdown(
        _ rows: [PooledComparison.Row], threshold: Double, alpha: Double, cellRows: [ResultComparison.Row],
        cellColumns: [String], cellThreshold: Double, cellAlpha: Double
    ) -> String {
        let pooledRegressed = rows.filter(\.regressed).map(\.metric)
        let cellRegressed = cellRows.filter { $0.verdict == .regressed }.count
        let verdict = pooledRegressed.isEmpty && cellRegressed == 0 ? "no regression" : "REGRESSION"
        var lines = [
            "### stacklab gate: \(verdict)", "",
            "Pooled over every cell: the k-th run of a cell on each side ran side by side and gives one ratio "
                + "current/base; a metric regressed when the median ratio is \(String(format: "%g", threshold * 100))% "
                + "or more larger and a one-sided Wilcoxon signed-rank test gives p < \(String(format: "%g", alpha)).",
            "",
            "| metric | pairs | pooled change | p | verdict |",
            "| --- | ---: | ---: | ---: | --- |",
        ]
        for row in rows {
            lines.append(
                "| `\(row.metric)` | \(row.pairs) | \(String(format: "%+.1f%%", row.change * 100)) | "
                    + "\(String(format: "%.4f", row.pValue)) | \(row.regressed ? "**regressed**" : "unchanged") |")
        }
        lines.append("")
        var text = lines.joined(separator: "\n") + "\n"
        if !cellRows.isEmpty {
            text += "\n"
            text += ComparisonMarkdown.render(
                cellRows, cellColumns: cellColumns, threshold: cellThreshold, alpha: cellAlpha,
                title: "per cell (\(Set(cellRows.map(\.metric)).sorted().joined(separator: ", ")))"
            )
            .replacingOccurrences(of: "### ", with: "#### ")
        }
        return text
    }
}
