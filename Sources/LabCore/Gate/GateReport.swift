import Foundation

/// The gate's verdicts for people and tools: a terminal table, a CSV row per metric, and a Markdown summary
/// for a pull request (`$GITHUB_STEP_SUMMARY`).
public enum GateReport {
    static let columns = [
        "metric", "pairs", "pooled_change_pct", "change_low_pct", "change_high_pct", "p_value", "verdict",
        "interval_verdict", "threshold_pct", "alpha", "confidence_pct",
    ]

    static func cells(_ row: PooledComparison.Row, threshold: Double, alpha: Double) -> [String] {
        let interval = row.comparison.interval
        let change = { (ratio: Double?) in ratio.map { String(format: "%+.1f", ($0 - 1) * 100) } ?? "" }
        return [
            row.metric, String(row.pairs), String(format: "%+.1f", row.change * 100), change(interval?.lowerBound),
            change(interval?.upperBound), String(format: "%.4f", row.pValue),
            row.regressed ? "regressed" : "unchanged", row.comparison.verdict.rawValue,
            String(format: "%g", threshold * 100), String(format: "%g", alpha),
            String(format: "%g", row.comparison.confidence * 100),
        ]
    }

    /// `+5.4% to +15.6%`, the pooled change's interval, or `–`.
    static func interval(_ row: PooledComparison.Row) -> String {
        guard let interval = row.comparison.interval else { return "–" }
        return String(format: "%+.1f%% to %+.1f%%", (interval.lowerBound - 1) * 100, (interval.upperBound - 1) * 100)
    }

    /// The pooled rows as an aligned table.
    public static func table(_ rows: [PooledComparison.Row], threshold: Double, alpha: Double) -> String {
        TextTable.render(
            header: columns, rows: rows.map { cells($0, threshold: threshold, alpha: alpha) }, leftAligned: [0, 6, 7])
    }

    /// The pooled rows as CSV, one per metric.
    public static func csv(_ rows: [PooledComparison.Row], threshold: Double, alpha: Double) -> String {
        ResultCSV.render([columns] + rows.map { cells($0, threshold: threshold, alpha: alpha) }) + "\n"
    }

    /// The whole verdict as Markdown: a heading with it, the pooled table, then the per-cell comparison of
    /// `cellRows` (regressions first).
    public static func markdown(
        _ rows: [PooledComparison.Row], threshold: Double, alpha: Double, cellRows: [ResultComparison.Row],
        cellColumns: [String], cellThreshold: Double
    ) -> String {
        let pooledRegressed = rows.filter(\.regressed).map(\.metric)
        let cellRegressed = cellRows.filter { $0.verdict == .slower }.count
        let verdict = pooledRegressed.isEmpty && cellRegressed == 0 ? "no regression" : "REGRESSION"
        var lines = [
            "### stacklab gate: \(verdict)", "",
            "Pooled over every cell: the k-th run of a cell on each side ran side by side and gives one ratio "
                + "current/base; a metric regressed when the median ratio is \(String(format: "%g", threshold * 100))% "
                + "or more larger and a one-sided Wilcoxon signed-rank test gives p < \(String(format: "%g", alpha)). "
                + "Beside it, the pooled change's \(RatioComparison.percent(rows.first?.comparison.confidence ?? 0.95)) "
                + "Hodges-Lehmann interval and what it says against ±\(String(format: "%g", threshold * 100))%.",
            "",
            "| metric | pairs | pooled change | interval | p | verdict | interval says |",
            "| --- | ---: | ---: | ---: | ---: | --- | --- |",
        ]
        for row in rows {
            lines.append(
                "| `\(row.metric)` | \(row.pairs) | \(String(format: "%+.1f%%", row.change * 100)) | \(interval(row)) | "
                    + "\(String(format: "%.4f", row.pValue)) | \(row.regressed ? "**regressed**" : "unchanged") | "
                    + "\(row.comparison.verdict.rawValue) |")
        }
        lines.append("")
        var text = lines.joined(separator: "\n") + "\n"
        if !cellRows.isEmpty {
            text += "\n"
            text += ComparisonMarkdown.render(
                cellRows, cellColumns: cellColumns, threshold: cellThreshold, paired: true,
                title: "per cell (\(Set(cellRows.map(\.metric)).sorted().joined(separator: ", ")))"
            )
            .replacingOccurrences(of: "### ", with: "#### ")
        }
        return text
    }
}
