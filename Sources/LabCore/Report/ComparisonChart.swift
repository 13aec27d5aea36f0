import Foundation

/// A comparison drawn as SVG: per metric, a horizontal bar per cell of the estimated change against the
/// baseline, coloured by the verdict, with its confidence interval as a whisker and the threshold band shaded
/// around zero. Drawn from `compare`'s rows, or from the CSV `compare --out` writes (one written before the
/// intervals, with `change_pct` the change of the medians and the old verdicts, draws as it always did).
public struct ComparisonChart: Sendable {
    /// One cell's change of one metric.
    public struct Bar: Sendable {
        public var cell: String
        public var metric: String
        /// The change in percent; nil when it could not be computed (no values on a side).
        public var changePercent: Double?
        public var verdict: String
        public var note: String
        /// The change's confidence interval in percent; nil without one.
        public var intervalPercent: ClosedRange<Double>?

        /// Creates the bar of one cell's metric: its change in percent (nil when not comparable), its interval
        /// and verdict.
        public init(
            cell: String, metric: String, changePercent: Double?, verdict: String, note: String,
            intervalPercent: ClosedRange<Double>? = nil
        ) {
            self.cell = cell
            self.metric = metric
            self.changePercent = changePercent
            self.verdict = verdict
            self.note = note
            self.intervalPercent = intervalPercent
        }
    }

    public var bars: [Bar]
    /// The threshold in percent (the band), if known.
    public var thresholdPercent: Double?
    /// Which way each metric gets better, when known (titles say it).
    public var polarity: [String: MetricPolarity]

    /// The verdicts' colours; the last four are the verdicts of comparisons written before the intervals.
    static let verdictColors = [
        "faster": "#2ca02c", "slower": "#d62728", "same": "#9e9e9e", "unresolved": "#f2a93b", "changed": "#1f77b4",
        "improved": "#2ca02c", "regressed": "#d62728", "unchanged": "#9e9e9e", "inconclusive": "#f2a93b",
    ]
    /// The legend's order.
    static let verdictOrder = [
        "faster", "slower", "improved", "regressed", "changed", "unresolved", "inconclusive", "same", "unchanged",
    ]
    static let width = 540.0
    static let labelWidth = 200.0
    static let rowHeight = 16.0

    /// Creates a chart of `bars`, with the threshold drawn at `thresholdPercent` and each metric's polarity.
    public init(bars: [Bar], thresholdPercent: Double?, polarity: [String: MetricPolarity]) {
        self.bars = bars
        self.thresholdPercent = thresholdPercent
        self.polarity = polarity
    }

    /// The bars of `rows`, cells named by the columns that vary.
    public init(_ rows: [ResultComparison.Row], cellColumns: [String], threshold: Double) {
        let labels = CellLabels(rows, columns: cellColumns)
        bars = rows.map { row in
            let varying = labels.varying.compactMap { row.cell[$0].flatMap { $0.isEmpty ? nil : $0 } }
            return Bar(
                cell: varying.isEmpty ? row.cellLabel : varying.joined(separator: " · "), metric: row.metric,
                changePercent: row.relativeChange.map { $0 * 100 }, verdict: row.verdict.rawValue, note: row.note,
                intervalPercent: row.comparison.interval.map { ($0.lowerBound - 1) * 100...($0.upperBound - 1) * 100 })
        }
        thresholdPercent = threshold * 100
        polarity = Dictionary(rows.map { ($0.metric, $0.polarity) }, uniquingKeysWith: { first, _ in first })
    }

    /// Reads the CSV `stacklab compare --out` writes (cell columns, then `metric`, `change_pct`, `verdict`…).
    /// - Throws: `CompareError.malformed` when it is not one.
    public init(table: ResultTable) throws {
        guard let metricIndex = table.columns.firstIndex(of: "metric"), table.columns.contains("change_pct"),
            table.columns.contains("verdict")
        else {
            throw CompareError.malformed(
                table.source, line: 1, reason: "not a comparison: no metric, change_pct, verdict")
        }
        let cellColumns = Array(table.columns[..<metricIndex])
        let varying = cellColumns.indices.filter { index in Set(table.rows.map { $0[index] }).count > 1 }
        var polarity: [String: MetricPolarity] = [:]
        bars = table.rows.map { row in
            let metric = row[metricIndex]
            if let better = table.value("better", in: row).flatMap(MetricPolarity.init(rawValue:)) {
                polarity[metric] = better
            }
            let cell = varying.map { row[$0] }.filter { !$0.isEmpty }.joined(separator: " · ")
            let text = table.value("change_pct", in: row) ?? ""
            let interval = ["ratio_low", "ratio_high"].compactMap { table.value($0, in: row).flatMap(Self.number) }
            return Bar(
                cell: cell.isEmpty ? cellColumns.indices.map { row[$0] }.joined(separator: " · ") : cell,
                metric: metric, changePercent: Self.number(text), verdict: table.value("verdict", in: row) ?? "",
                note: table.value("note", in: row) ?? "",
                intervalPercent: interval.count == 2 ? (interval[0] - 1) * 100...(interval[1] - 1) * 100 : nil)
        }
        thresholdPercent = table.rows.compactMap { table.value("threshold_pct", in: $0).flatMap(Double.init) }.max()
        self.polarity = polarity
    }

    /// A number as the CSV writes it, `inf` and `-inf` included.
    static func number(_ text: String) -> Double? {
        switch text {
        case "inf": return .infinity
        case "-inf": return -.infinity
        default: return Double(text)
        }
    }

    /// The metrics in the order they first appear.
    public var metrics: [String] {
        bars.map(\.metric).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
    }

    /// One chart per metric of `metrics`.
    func charts(_ metrics: [String]) -> [(svg: String, height: Double)] {
        metrics.map(chart)
    }

    /// One metric's chart.
    func chart(_ metric: String) -> (svg: String, height: Double) {
        let rows = bars.filter { $0.metric == metric }
        let changes = rows.compactMap(\.changePercent).filter(\.isFinite).map(abs)
        let limit = max(changes.max() ?? 0, (thresholdPercent ?? 5) * 2) * 1.25
        let plotLeft = Self.labelWidth
        let plotRight = Self.width - 10
        let zero = (plotLeft + plotRight) / 2
        let scale = (plotRight - plotLeft) / 2 / limit
        let top = 24.0
        let height = top + Self.rowHeight * Double(rows.count) + 52
        let better: String
        switch polarity[metric] {
        case .lowerIsBetter?: better = " (lower is better)"
        case .higherIsBetter?: better = " (higher is better)"
        case .neutral?: better = " (a count: neither better nor worse)"
        case nil: better = ""
        }
        var svg = ReportChart.svgOpen(height: height, label: "change of \(metric)")
        svg +=
            "<text class=\"title\" x=\"0\" y=\"14\" font-weight=\"bold\">\(HTMLReport.escape(metric + better))</text>\n"
        let bottom = top + Self.rowHeight * Double(rows.count)
        if let threshold = thresholdPercent {
            let band = min(threshold, limit) * scale
            svg += "<rect class=\"band\" x=\"\(f(zero - band))\" y=\"\(f(top))\" width=\"\(f(2 * band))\" "
            svg +=
                "height=\"\(f(bottom - top))\" fill=\"#e8e8e8\"><title>threshold ±\(String(format: "%g", threshold))%"
            svg += "</title></rect>\n"
        }
        for tick in [-limit / 1.25, 0, limit / 1.25] {
            let x = zero + tick * scale
            svg += "<line x1=\"\(f(x))\" x2=\"\(f(x))\" y1=\"\(f(top))\" y2=\"\(f(bottom + 4))\" stroke=\"#bbb\"/>"
            svg += "<text x=\"\(f(x))\" y=\"\(f(bottom + 16))\" text-anchor=\"middle\">"
            svg += "\(String(format: "%+.0f%%", tick))</text>\n"
        }
        let intervals = rows.contains { $0.intervalPercent != nil }
        svg += "<text x=\"\(f(zero))\" y=\"\(f(bottom + 30))\" text-anchor=\"middle\">"
        svg +=
            intervals
            ? "change against the baseline (%), whiskers the confidence interval</text>\n"
            : "change of the median against the baseline (%)</text>\n"
        for (index, row) in rows.enumerated() {
            let y = top + Self.rowHeight * Double(index)
            svg += "<text x=\"\(f(plotLeft - 6))\" y=\"\(f(y + 11))\" text-anchor=\"end\">"
            svg +=
                "\(HTMLReport.escape(ReportChart.short(row.cell, limit: Int(plotLeft / 6.4))))<title>\(HTMLReport.escape(row.cell))</title></text>\n"
            guard let change = row.changePercent else {
                svg += "<text x=\"\(f(zero + 4))\" y=\"\(f(y + 11))\" fill=\"#777\">"
                svg += "\(HTMLReport.escape(row.note.isEmpty ? "no values" : row.note))</text>\n"
                continue
            }
            let clipped = change.isFinite ? change : (change > 0 ? limit * 0.95 : -limit * 0.95)
            let length = clipped * scale
            let color = Self.verdictColors[row.verdict] ?? "#777"
            svg += "<rect class=\"change\" x=\"\(f(min(zero, zero + length)))\" y=\"\(f(y + 2))\" "
            svg += "width=\"\(f(max(1, abs(length))))\" height=\"\(f(Self.rowHeight - 4))\" fill=\"\(color)\">"
            svg +=
                "<title>\(HTMLReport.escape("\(row.cell)\n\(metric): \(String(format: "%+.1f%%", change)), \(row.verdict)"))"
            svg += "</title></rect>\n"
            if let interval = row.intervalPercent {
                let clip = { (value: Double) in min(max(value, -limit * 0.95), limit * 0.95) }
                let (low, high) = (zero + clip(interval.lowerBound) * scale, zero + clip(interval.upperBound) * scale)
                svg += "<line class=\"interval\" x1=\"\(f(low))\" x2=\"\(f(high))\" y1=\"\(f(y + 8))\" "
                svg += "y2=\"\(f(y + 8))\" stroke=\"#222\" stroke-width=\"1.2\"><title>"
                svg += HTMLReport.escape(
                    "\(row.cell)\n\(metric): \(String(format: "%+.1f%% to %+.1f%%", interval.lowerBound, interval.upperBound))"
                )
                svg += "</title></line>\n"
            }
            let label = change.isFinite ? String(format: "%+.1f%%", change) : "from 0"
            // A long bar carries its label inside its end, so the label does not run into the cell's name.
            let inside = abs(clipped) > limit * 0.7
            let anchor = (length >= 0) != inside ? "start" : "end"
            let offset = (length >= 0) != inside ? 3.0 : -3.0
            svg += "<text x=\"\(f(zero + length + offset))\" y=\"\(f(y + 11))\" "
            svg += "text-anchor=\"\(anchor)\"\(inside ? " fill=\"#fff\"" : "")>\(label)</text>\n"
        }
        svg += "<line x1=\"\(f(zero))\" x2=\"\(f(zero))\" y1=\"\(f(top))\" y2=\"\(f(bottom))\" stroke=\"#333\"/>\n"
        // The legend: the verdicts drawn.
        let drawn = Self.verdictOrder.filter { verdict in
            rows.contains { $0.verdict == verdict }
        }
        var x = 0.0
        for verdict in drawn {
            svg += "<rect x=\"\(f(x))\" y=\"\(f(bottom + 38))\" width=\"10\" height=\"10\" "
            svg += "fill=\"\(Self.verdictColors[verdict] ?? "#777")\"/>"
            svg += "<text x=\"\(f(x + 13))\" y=\"\(f(bottom + 47))\">\(verdict)</text>\n"
            x += 24 + Double(verdict.count) * 6.2
        }
        return (svg + "</svg>\n", height)
    }

    private func f(_ value: Double) -> String { String(format: "%.1f", value) }
}
