import Foundation

/// The current side of a comparison in the JSON that github-action-benchmark reads: an array of
/// `{name, unit, value, range, extra}`, one entry per cell and metric.
///
/// That action charts one direction per file (`tool: customSmallerIsBetter` or `customBiggerIsBetter`), so
/// the entries are split by the metric's declared polarity and one call writes one side; counts and settings
/// (`MetricPolarity.neutral`) and undeclared columns are left out, since they get neither better nor worse.
public enum BenchmarkJSON {
    /// Which of the action's two tools a file is for.
    public enum Direction: String, Sendable, CaseIterable {
        /// `customSmallerIsBetter`: times, memory, sizes.
        case smaller
        /// `customBiggerIsBetter`: throughput.
        case bigger

        var polarity: MetricPolarity { self == .smaller ? .lowerIsBetter : .higherIsBetter }
    }

    /// One entry of the action's array.
    struct Entry: Encodable {
        let name: String
        let unit: String
        let value: Double
        let range: String?
        let extra: String
    }

    /// The rows of `direction` that have a current value, as a JSON array (keys sorted, so the file diffs well).
    public static func render(_ rows: [ResultComparison.Row], direction: Direction) throws -> String {
        let entries = rows.compactMap { row -> Entry? in
            guard row.polarity == direction.polarity, let value = row.currentMedian
            else { return nil }
            var extra = ["n=\(row.currentCount)", "verdict=\(row.verdict.rawValue)"]
            if let baseline = row.baselineMedian { extra.append("baseline median=\(format(baseline))") }
            if let ratio = row.comparison.ratio { extra.append("ratio=\(ComparisonReport.ratio(ratio))") }
            if row.comparison.interval != nil {
                let level = RatioComparison.percent(row.comparison.confidence)
                extra.append("\(level) CI=\(ComparisonReport.interval(row.comparison))")
            }
            return Entry(
                name: "\(row.cellLabel) \(row.metric)", unit: row.unit, value: value,
                range: row.currentRange.map { "\(format($0.lowerBound))..\(format($0.upperBound))" },
                extra: extra.joined(separator: "; "))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(entries), as: UTF8.self) + "\n"
    }

    private static func format(_ value: Double) -> String { String(format: "%.2f", value) }
}
