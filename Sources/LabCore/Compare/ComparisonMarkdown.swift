import Foundation

/// A comparison as GitHub-flavoured Markdown, short enough for a pull-request comment or
/// `$GITHUB_STEP_SUMMARY`: a heading with the tally, then one table row per judged metric that is not
/// unchanged, regressions first; the unchanged ones are only counted.
public enum ComparisonMarkdown {
    /// The order rows appear in: what needs attention first.
    static let verdictOrder: [ComparisonVerdict] = [.regressed, .changed, .inconclusive, .improved, .unchanged]

    /// Renders `rows`; `title` heads the summary.
    public static func render(
        _ rows: [ResultComparison.Row], threshold: Double, alpha: Double, title: String = "stacklab compare"
    ) -> String {
        let count = { (verdict: ComparisonVerdict) in rows.filter { $0.verdict == verdict }.count }
        let regressed = count(.regressed)
        let status = regressed == 0 ? "no regression" : "\(regressed) regressed"
        let tally = verdictOrder.map { "\(count($0)) \($0.rawValue)" }.joined(separator: ", ")
        var lines = ["### \(title): \(status)", "", tally, ""]
        let shown = verdictOrder.dropLast().flatMap { verdict in rows.filter { $0.verdict == verdict } }
        if shown.isEmpty {
            lines.append("Every compared metric is within the threshold.")
        } else {
            lines.append("| verdict | cell | metric | baseline median | current median | change | p |")
            lines.append("| --- | --- | --- | ---: | ---: | ---: | ---: |")
            for row in shown {
                let verdict = row.verdict == .regressed ? "**regressed**" : row.verdict.rawValue
                let cells = [
                    verdict, escape(row.cellLabel), "`\(row.metric)`", number(row.baselineMedian),
                    number(row.currentMedian), row.relativeChange.map { String(format: "%+.1f%%", $0 * 100) } ?? "–",
                    row.pValue.map { String(format: "%.3f", $0) } ?? "–",
                ]
                lines.append("| " + cells.joined(separator: " | ") + " |")
            }
        }
        lines.append("")
        lines.append(
            "Threshold \(String(format: "%g", threshold * 100))%, Mann-Whitney U two-sided, alpha \(alpha); "
                + "\(count(.unchanged)) unchanged not listed.")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func number(_ value: Double?) -> String {
        value.map { String(format: "%.2f", $0) } ?? "–"
    }

    /// A pipe would end the table cell early.
    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|")
    }
}
