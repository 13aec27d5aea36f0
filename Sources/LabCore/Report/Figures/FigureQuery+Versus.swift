import Foundation

extension FigureQuery {
    /// The comparisons `vs=COLUMN:A/B` asks for: each matching cell with COLUMN=A against its twin with COLUMN=B (every
    /// other column the same), from their runs, in the file's order of cells.
    func comparisons(of metric: String, in data: ReportData, table: ResultTable) throws -> [RatioComparison] {
        guard let versus else { return [] }
        // Neutral: the phrase says which way the ratio goes, not whether that is better.
        return try twins(versus, in: data.cells, table: table).compactMap { cell, twin -> RatioComparison? in
            let (own, others) = (cell.values[metric] ?? [], twin.values[metric] ?? [])
            guard !own.isEmpty, !others.isEmpty else { return nil }
            return RatioComparison(base: others, current: own, polarity: .neutral, threshold: threshold)
        }
    }

    /// The comparisons as prose: one phrase each (`list`), or one for them all (`range`, when they agree), or the
    /// one there is.
    ///
    /// A phrase says the ratio A/B: `3.1–4.6× less` (the whole 95% interval below 1 − threshold: B/A's interval),
    /// `1.2–1.5× more` (above 1 + threshold), `the same within 10%` (inside the band), `unresolved (0.80–1.3×)`
    /// (across an edge), or `unresolved (3 runs a side give no 95% interval)`.
    func phrase(_ comparisons: [RatioComparison], in table: ResultTable) throws -> String {
        guard !comparisons.isEmpty else { throw LabError(.invalidResults, "\(table.source): no cell and twin match") }
        switch fold {
        case .one:
            guard comparisons.count == 1 else {
                throw LabError(
                    .invalidResults,
                    "\(table.source): \(comparisons.count) cells match; expected one (add a filter, or fold: range, list)"
                )
            }
            return phrase(comparisons[0])
        case .list:
            return Self.list(comparisons.map(phrase))
        case .range:
            return together(comparisons) ?? Self.list(comparisons.map(phrase))
        default:
            throw LabError(.invalidResults, "\(table.source): a vs= figure folds as one, range or list")
        }
    }

    /// One phrase for comparisons that all say the same (all less, all more, all the same, all without an interval
    /// for the same runs): their intervals' span; nil when they differ.
    private func together(_ comparisons: [RatioComparison]) -> String? {
        let phrases = Set(comparisons.map { kind(of: $0) })
        guard phrases.count == 1, let kind = phrases.first else { return nil }
        let intervals = comparisons.compactMap(\.interval)
        guard intervals.count == comparisons.count, let low = intervals.map(\.lowerBound).min(),
            let high = intervals.map(\.upperBound).max()
        else { return comparisons.count == 1 || kind.hasPrefix("none") ? phrase(comparisons[0]) : nil }
        return phrase(kind: kind, interval: low...high)
    }

    /// What a comparison says, without its numbers: `less`, `more`, `same`, `unresolved`, or `none N M`.
    private func kind(of comparison: RatioComparison) -> String {
        guard let interval = comparison.interval else {
            return "none \(comparison.currentCount) \(comparison.baseCount)"
        }
        switch comparison.verdict {
        case .same: return "same"
        case .changed: return interval.upperBound < 1 ? "less" : "more"
        default: return "unresolved"
        }
    }

    private func phrase(_ comparison: RatioComparison) -> String {
        guard let interval = comparison.interval else {
            let (own, other) = (comparison.currentCount, comparison.baseCount)
            let runs = own == other ? "\(own) runs a side give" : "\(own) and \(other) runs give"
            return "unresolved (\(runs) no \(RatioComparison.percent(comparison.confidence)) interval)"
        }
        return phrase(kind: kind(of: comparison), interval: interval)
    }

    private func phrase(kind: String, interval: ClosedRange<Double>) -> String {
        let span = { (low: Double, high: Double) -> String in
            let (from, to) = (format.text(low), format.text(high))
            return from == to ? from : from + rangeSeparator + to
        }
        switch kind {
        case "less": return span(1 / interval.upperBound, 1 / interval.lowerBound) + "× \(words[0])"
        case "more": return span(interval.lowerBound, interval.upperBound) + "× \(words[1])"
        case "same": return "the same within \(String(format: "%g", threshold * 100))%"
        default: return "unresolved (\(span(interval.lowerBound, interval.upperBound))×)"
        }
    }
}
