import Foundation

/// A comparison as GitHub-flavoured Markdown, short enough for a pull-request comment or
/// `$GITHUB_STEP_SUMMARY`: a heading with the tally, a line naming what every row shares (scenario, workload,
/// parameters the matrix does not sweep), then one table row per metric that is not the same, slower ones
/// first, its cell named by the parameters that vary, one column each, with the ratio and its interval; the
/// metrics that are the same are only counted.
public enum ComparisonMarkdown {
    /// The order rows appear in: what needs attention first.
    static let verdictOrder: [ComparisonVerdict] = [.slower, .changed, .unresolved, .faster, .same]

    /// Renders `rows`, whose cells are named by `cellColumns` (`ResultComparison.cellColumns`, for their
    /// order); `title` heads the summary.
    public static func render(
        _ rows: [ResultComparison.Row], cellColumns: [String], threshold: Double, confidence: Double = 0.95,
        paired: Bool = false, title: String = "stacklab compare"
    ) -> String {
        let count = { (verdict: ComparisonVerdict) in rows.filter { $0.verdict == verdict }.count }
        let slower = count(.slower)
        let status = slower == 0 ? "nothing slower" : "\(slower) slower"
        let tally = verdictOrder.map { "\(count($0)) \($0.rawValue)" }.joined(separator: ", ")
        // Over every compared row, not only the listed ones: a column is a parameter of the matrix or not.
        let labels = CellLabels(rows, columns: cellColumns)
        var lines = ["### \(title): \(status)", ""]
        if let shared = caption(labels) { lines += [shared, ""] }
        lines += [tally, ""]
        let shown = verdictOrder.dropLast().flatMap { verdict in rows.filter { $0.verdict == verdict } }
        if shown.isEmpty {
            lines.append("Every compared metric is the same within the threshold.")
        } else {
            let header =
                ["verdict"] + labels.varying + [
                    "metric", "baseline median", "current median", "ratio", "\(RatioComparison.percent(confidence)) CI",
                ]
            lines.append("| " + header.map(escape).joined(separator: " | ") + " |")
            let alignments = ["---"] + labels.varying.map { _ in "---" } + ["---", "---:", "---:", "---:", "---:"]
            lines.append("| " + alignments.joined(separator: " | ") + " |")
            for row in shown {
                let text = ComparisonReport.verdict(row.comparison)
                let verdict = row.verdict == .slower ? "**\(text)**" : text
                let cells =
                    [escape(verdict)] + labels.varying.map { escape(row.cell[$0] ?? "") } + [
                        "`\(row.metric)`", number(row.baselineMedian), number(row.currentMedian),
                        row.comparison.ratio.map { ComparisonReport.ratio($0) + "×" } ?? "–",
                        ComparisonReport.interval(row.comparison),
                    ]
                lines.append("| " + cells.joined(separator: " | ") + " |")
            }
        }
        lines.append("")
        let method = ComparisonReport.method(threshold: threshold, confidence: confidence, paired: paired)
        lines.append(method.prefix(1).uppercased() + method.dropFirst() + "; \(count(.same)) same not listed.")
        return lines.joined(separator: "\n") + "\n"
    }

    /// `Scenario `startup`, workload `startup`; in every row: `objects=10000`.`, or nil when nothing is shared.
    private static func caption(_ labels: CellLabels) -> String? {
        let named = labels.constant.filter { ["scenario", "workload"].contains($0.column) }
        let others = labels.constant.filter { !["scenario", "workload"].contains($0.column) }
        var parts = named.map { "\($0.column) `\(escape($0.value))`" }
        if !others.isEmpty {
            parts.append(
                "in every row: " + others.map { "`\(escape("\($0.column)=\($0.value)"))`" }.joined(separator: " "))
        }
        guard !parts.isEmpty else { return nil }
        let text = parts.joined(separator: ", ")
        return text.prefix(1).uppercased() + text.dropFirst() + "."
    }

    private static func number(_ value: Double?) -> String {
        value.map { String(format: "%.2f", $0) } ?? "–"
    }

    /// A pipe would end the table cell early.
    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|")
    }
}
