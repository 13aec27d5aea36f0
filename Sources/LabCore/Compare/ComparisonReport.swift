import Foundation

/// Shows a comparison as a terminal table and writes it as CSV (for charts of the ratio and its interval), with a
/// sidecar declaring the CSV's columns.
public enum ComparisonReport {
    /// The text table's columns.
    static let columns = [
        "cell", "metric", "baseline_median", "baseline_n", "current_median", "current_n", "ratio", "95% CI",
        "verdict", "note",
    ]

    /// The CSV's columns after the cell's: what `compare --out` writes and results/README.md describes.
    public static let csvColumns = [
        "metric", "baseline_median", "baseline_n", "current_median", "current_n", "ratio", "ratio_low", "ratio_high",
        "change_pct", "same_within_pct", "verdict", "repetitions_needed", "confidence_pct", "threshold_pct", "paired",
        "better", "note",
    ]

    /// The declarations of the CSV's numeric columns, for its sidecar: what `report` and `figures` read it by.
    public static let declarations: [Metric] = [
        Metric(
            "baseline_median", unit: MetricUnit("the metric's"), polarity: .neutral, group: "sides", decimals: 3,
            about: "the median of the baseline's runs of the cell"),
        Metric(
            "baseline_n", unit: .count, polarity: .neutral, group: "sides", about: "the baseline's runs of the cell"),
        Metric(
            "current_median", unit: MetricUnit("the metric's"), polarity: .neutral, group: "sides", decimals: 3,
            about: "the median of the current runs of the cell"),
        Metric("current_n", unit: .count, polarity: .neutral, group: "sides", about: "the current runs of the cell"),
        Metric(
            "ratio", unit: .ratio, polarity: .neutral, group: "ratio", decimals: 4,
            about: "current/base: the Hodges-Lehmann estimate"),
        Metric(
            "ratio_low", unit: .ratio, polarity: .neutral, group: "ratio", decimals: 4,
            about: "the low end of the ratio's confidence interval; empty when the runs are too few for one"),
        Metric(
            "ratio_high", unit: .ratio, polarity: .neutral, group: "ratio", decimals: 4,
            about: "the high end of the ratio's confidence interval"),
        Metric(
            "change_pct", unit: MetricUnit("%"), polarity: .neutral, group: "ratio", decimals: 1,
            about: "(ratio - 1) x 100"),
        Metric(
            "same_within_pct", unit: MetricUnit("%"), polarity: .lowerIsBetter, group: "ratio", decimals: 1,
            about: "the smallest band +-m around no change that holds the whole interval"),
        Metric(
            "repetitions_needed", unit: .count, polarity: .neutral, group: "verdict",
            about: "for an unresolved verdict: the runs a side (or pairs) that would likely resolve it"),
    ]

    /// `0.21–0.31`, or `–` without an interval.
    static func interval(_ comparison: RatioComparison, digits: Int = 3) -> String {
        guard let interval = comparison.interval else { return "–" }
        return "\(ratio(interval.lowerBound, digits: digits))–\(ratio(interval.upperBound, digits: digits))"
    }

    /// A ratio with three significant digits (`0.213`, `1.05`, `12.4`), `inf` when a base of 0 made it infinite.
    static func ratio(_ value: Double, digits significant: Int = 3) -> String {
        guard value.isFinite else { return value > 0 ? "inf" : "-inf" }
        let digits = max(0, significant - 1 - Int(floor(log10(max(abs(value), 1e-9)))))
        return String(format: "%.\(digits)f", value)
    }

    /// The verdict as a reader wants it: `unresolved (~12 runs)` says what would resolve it.
    static func verdict(_ comparison: RatioComparison) -> String {
        guard comparison.verdict == .unresolved, let needed = comparison.repetitionsNeeded else {
            return comparison.verdict.rawValue
        }
        return "unresolved (~\(needed) \(comparison.pairing == .paired ? "pairs" : "runs"))"
    }

    static func cells(_ row: ResultComparison.Row) -> [String] {
        [
            row.cellLabel, row.metric, format(row.baselineMedian), String(row.baselineCount),
            format(row.currentMedian), String(row.currentCount), row.comparison.ratio.map { ratio($0) } ?? "",
            interval(row.comparison), verdict(row.comparison), row.note,
        ]
    }

    private static func format(_ value: Double?) -> String {
        guard let value else { return "" }
        return String(format: "%.2f", value)
    }

    /// The closing line: the tally of the verdicts and how they were reached.
    static func tally(_ rows: [ResultComparison.Row], threshold: Double, confidence: Double, paired: Bool) -> String {
        let counts = ComparisonVerdict.allCases.map { verdict in
            "\(rows.filter { $0.verdict == verdict }.count) \(verdict.rawValue)"
        }
        return counts.joined(separator: ", ") + " ("
            + method(threshold: threshold, confidence: confidence, paired: paired)
            + ")"
    }

    /// `threshold 10%, 95% Hodges-Lehmann intervals of current/base, unpaired runs`.
    static func method(threshold: Double, confidence: Double, paired: Bool) -> String {
        "threshold \(String(format: "%g", threshold * 100))%, \(RatioComparison.percent(confidence)) Hodges-Lehmann "
            + "intervals of current/base, \(paired ? "paired" : "unpaired") runs"
    }

    /// The rows as an aligned table followed by a one-line tally of the verdicts.
    public static func table(_ rows: [ResultComparison.Row], threshold: Double, confidence: Double, paired: Bool)
        -> String
    {
        TextTable.render(header: columns, rows: rows.map(cells), leftAligned: [0, 1, 8, 9]) + "\n\n"
            + tally(rows, threshold: threshold, confidence: confidence, paired: paired)
    }

    /// The rows as CSV, one per cell and metric, with the cell's identifying columns spelled out; `better` says
    /// which way the metric improves (lower, higher, neutral), as its declaration says.
    public static func csv(_ rows: [ResultComparison.Row], cellColumns: [String], threshold: Double) -> String {
        ResultCSV.render(
            [cellColumns + csvColumns]
                + rows.map { row in
                    let comparison = row.comparison
                    let number = { (value: Double?, digits: Int) in
                        value.map { $0.isFinite ? String(format: "%.\(digits)f", $0) : ($0 > 0 ? "inf" : "-inf") } ?? ""
                    }
                    return cellColumns.map { row.cell[$0] ?? "" } + [
                        row.metric, number(row.baselineMedian, 3), String(row.baselineCount),
                        number(row.currentMedian, 3), String(row.currentCount), number(comparison.ratio, 4),
                        number(comparison.interval?.lowerBound, 4), number(comparison.interval?.upperBound, 4),
                        number(comparison.change.map { $0 * 100 }, 1),
                        number(comparison.sameWithin.map { $0 * 100 }, 1),
                        comparison.verdict.rawValue, comparison.repetitionsNeeded.map(String.init) ?? "",
                        String(format: "%g", comparison.confidence * 100), String(format: "%g", threshold * 100),
                        comparison.pairing == .paired ? "true" : "false", row.polarity.rawValue, row.note,
                    ]
                })
    }

    /// The sidecar of a comparison CSV: the current file's environment (else the baseline's, else one made from
    /// the CSV), the command that wrote it, and the declarations of its columns.
    public static func sidecar(_ comparison: ResultComparison, command: [String]) -> EnvironmentRecord {
        sidecar(of: comparison.current, or: comparison.baseline, command: command)
    }

    /// The sidecar of a comparison CSV made from `table` (a run compared with itself, or the current side): its
    /// environment, else `other`'s, else one made from the CSV, with the command and the columns' declarations.
    public static func sidecar(of table: ResultTable, or other: ResultTable? = nil, command: [String])
        -> EnvironmentRecord
    {
        var record =
            table.environment ?? other?.environment
            ?? EnvironmentRecord.reconstructed(
                for: table, workload: table.rows.first.flatMap { table.value("workload", in: $0) } ?? "unknown",
                command: command)
        record.command = command
        record.metrics = declarations
        record.strategies = nil
        record.headlineMetrics = ["ratio", "change_pct"]
        return record
    }
}
