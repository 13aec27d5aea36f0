import Foundation

/// A report chart of medians against a swept parameter, drawn as inline SVG: one polyline per series with a
/// dot per point (hover it for the median, min, max and run count) and a min–max whisker, axes with ticks and
/// labels (log where the chart's declaration asks), a legend, horizontal rules such as the watchdog deadline,
/// killed launches marked ✕ at the deadline and failed runs marked at the bottom.
public struct LineChart: Sendable {
    /// One cell's runs at one x.
    public struct Point: Sendable {
        public var x: Double
        public var median: Double
        public var low: Double
        public var high: Double
        public var count: Int

        /// Creates a point: the median of `count` values at `x`, with the spread from `low` to `high`.
        public init(x: Double, median: Double, low: Double, high: Double, count: Int) {
            self.x = x
            self.median = median
            self.low = low
            self.high = high
            self.count = count
        }
    }

    /// One line: a strategy, a mode, or one run's values of them.
    public struct Series: Sendable {
        public var name: String
        public var color: String
        /// An SVG dash pattern (`5 3`), nil for a solid line: later runs of a comparison and a second grouping
        /// column (merge-cost's changes) are dashed, so one strategy keeps its colour throughout.
        public var dash: String?
        public var points: [Point]

        /// Creates a series drawn in `color` (a CSS colour), dashed with `dash` (an SVG dash array) if given.
        public init(name: String, color: String, dash: String? = nil, points: [Point]) {
            self.name = name
            self.color = color
            self.dash = dash
            self.points = points
        }
    }

    /// A horizontal line across the plot, such as the watchdog deadline.
    public struct Rule: Sendable {
        public var y: Double
        public var label: String

        /// Creates a horizontal rule at `y`, labelled.
        public init(y: Double, label: String) {
            self.y = y
            self.label = label
        }
    }

    /// Runs that have no point to draw at `x`: killed launches (drawn at `y`, the deadline, or the top) and
    /// failed runs (drawn at the bottom).
    public struct Mark: Sendable {
        public var x: Double
        public var y: Double?
        public var color: String
        public var note: String

        /// Creates a mark at `x`, drawn at `y` (the top of the plot when nil), with a note.
        public init(x: Double, y: Double? = nil, color: String, note: String) {
            self.x = x
            self.y = y
            self.color = color
            self.note = note
        }
    }

    public var title: String
    public var xLabel: String
    public var yLabel: String
    public var xLog: Bool
    public var yLog: Bool
    public var series: [Series]
    public var rules: [Rule] = []
    public var killed: [Mark] = []
    public var failed: [Mark] = []
    /// Lines of text under the title (where one series is clearly below another).
    public var notes: [String] = []
    /// What the killed marks are, for the legend (the flag that marks them).
    public var killedLabel = "killed"

    public static let width = 540.0
    static let plotLeft = 64.0
    static let plotRight = 16.0
    static let plotHeight = 220.0

    /// A chart with no rules or marks; add them through the properties.
    public init(title: String, xLabel: String, yLabel: String, xLog: Bool, yLog: Bool, series: [Series]) {
        self.title = title
        self.xLabel = xLabel
        self.yLabel = yLabel
        self.xLog = xLog
        self.yLog = yLog
        self.series = series
    }

    /// The x axis: every point, killed and failed run.
    public var xScale: ChartScale {
        let xs = series.flatMap { $0.points.map(\.x) } + killed.map(\.x) + failed.map(\.x)
        return ChartScale(
            values: xs, log: xLog && xs.allSatisfy { $0 > 0 }, from: Self.plotLeft, to: Self.width - Self.plotRight)
    }

    /// The y axis: every whisker end, rule and killed launch's height; its pixels depend on the legend's rows.
    /// A log axis asked for turns linear when a value is zero (a launch without a stall), which it cannot show.
    public func yScale(top: Double) -> ChartScale {
        let ys =
            series.flatMap { $0.points.flatMap { [$0.low, $0.high] } } + rules.map(\.y) + killed.compactMap(\.y)
        return ChartScale(values: ys, log: yLog && ys.allSatisfy { $0 > 0 }, from: top + Self.plotHeight, to: top)
    }

    /// The legend's entries: each series, then the rules and marks when the chart has them.
    private var legend: [(kind: String, color: String, dash: String?, text: String)] {
        var entries = series.map { (kind: "line", color: $0.color, dash: $0.dash, text: $0.name) }
        for rule in rules { entries.append(("rule", "#000", "6 4", rule.label)) }
        if !killed.isEmpty { entries.append(("killed", "#c0392b", nil, "\(killedLabel) (\(killed.count))")) }
        if !failed.isEmpty { entries.append(("failed", "#c0392b", nil, "failed runs (\(failed.count))")) }
        return entries
    }

    /// The legend's entries laid out in rows that fit the width (about 6.2 px per character).
    private var legendRows: [[(kind: String, color: String, dash: String?, text: String, x: Double)]] {
        var rows: [[(kind: String, color: String, dash: String?, text: String, x: Double)]] = [[]]
        var cursor = Self.plotLeft
        for entry in legend {
            let width = 26 + Double(entry.text.count) * 6.2 + 14
            if cursor + width > Self.width, !rows[rows.count - 1].isEmpty {
                rows.append([])
                cursor = Self.plotLeft
            }
            rows[rows.count - 1].append((entry.kind, entry.color, entry.dash, entry.text, cursor))
            cursor += width
        }
        return rows
    }

    /// The top of the legend: below the title and its notes.
    private var legendTop: Double { 24 + 14 * Double(notes.count) }

    /// The top of the plot area.
    private var plotTop: Double { legendTop + 16 * Double(legendRows.count) + 10 }

    /// The chart's height in pixels.
    public var height: Double { plotTop + Self.plotHeight + 48 }

    /// The chart as one `<svg class="line-chart">` element.
    public func svg() -> String {
        let rows = legendRows
        let top = plotTop
        let x = xScale
        let y = yScale(top: top)
        let bottom = top + Self.plotHeight
        let right = Self.width - Self.plotRight
        var svg = "<svg class=\"line-chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"\(f(Self.width))\" "
        svg += "height=\"\(f(height))\" viewBox=\"0 0 \(f(Self.width)) \(f(height))\" role=\"img\" "
        svg += "aria-label=\"\(esc(title))\">\n"
        svg += "<text class=\"title\" x=\"0\" y=\"14\" font-weight=\"bold\">\(esc(title))</text>\n"
        for (index, note) in notes.enumerated() {
            svg += "<text class=\"note\" x=\"0\" y=\"\(f(28 + 14 * Double(index)))\">\(esc(note))</text>\n"
        }
        for (index, row) in rows.enumerated() {
            let rowY = legendTop + 16 * Double(index) + 8
            for entry in row {
                svg += legendKey(entry.kind, color: entry.color, dash: entry.dash, x: entry.x, y: rowY)
                svg +=
                    "<text class=\"legend\" x=\"\(f(entry.x + 26))\" y=\"\(f(rowY + 4))\">\(esc(entry.text))</text>\n"
            }
        }
        // Grid and ticks.
        for tick in y.minorTicks where tick > y.lower && tick < y.upper {
            let py = y.position(tick)
            svg += "<line class=\"minor y\" x1=\"\(f(Self.plotLeft))\" x2=\"\(f(right))\" y1=\"\(f(py))\" "
            svg += "y2=\"\(f(py))\" stroke=\"#f0f0f0\"/>\n"
        }
        for tick in y.ticks {
            let py = y.position(tick)
            svg += "<line class=\"grid y\" x1=\"\(f(Self.plotLeft))\" x2=\"\(f(right))\" y1=\"\(f(py))\" "
            svg += "y2=\"\(f(py))\" stroke=\"#ddd\"/>\n"
            svg += "<text class=\"tick y\" data-value=\"\(tick)\" x=\"\(f(Self.plotLeft - 5))\" y=\"\(f(py + 4))\" "
            svg += "text-anchor=\"end\">\(ChartScale.short(tick))</text>\n"
        }
        for tick in x.minorTicks where tick > x.lower && tick < x.upper {
            let px = x.position(tick)
            svg += "<line class=\"minor x\" x1=\"\(f(px))\" x2=\"\(f(px))\" y1=\"\(f(top))\" y2=\"\(f(bottom))\" "
            svg += "stroke=\"#f0f0f0\"/>\n"
        }
        for tick in x.ticks {
            let px = x.position(tick)
            svg += "<line class=\"grid x\" x1=\"\(f(px))\" x2=\"\(f(px))\" y1=\"\(f(top))\" y2=\"\(f(bottom + 4))\" "
            svg += "stroke=\"#ddd\"/>\n"
            svg += "<text class=\"tick x\" data-value=\"\(tick)\" x=\"\(f(px))\" y=\"\(f(bottom + 16))\" "
            svg += "text-anchor=\"middle\">\(ChartScale.short(tick))</text>\n"
        }
        svg += "<rect class=\"frame\" x=\"\(f(Self.plotLeft))\" y=\"\(f(top))\" width=\"\(f(right - Self.plotLeft))\" "
        svg += "height=\"\(f(Self.plotHeight))\" fill=\"none\" stroke=\"#999\"/>\n"
        svg += "<text class=\"axis-label x\" x=\"\(f((Self.plotLeft + right) / 2))\" y=\"\(f(bottom + 36))\" "
        svg += "text-anchor=\"middle\">\(esc(xLabel + (x.isLog ? " (log)" : "")))</text>\n"
        svg += "<text class=\"axis-label y\" transform=\"translate(12 \(f(top + Self.plotHeight / 2))) rotate(-90)\" "
        svg += "text-anchor=\"middle\">\(esc(yLabel + (y.isLog ? " (log)" : "")))</text>\n"
        for rule in rules {
            let py = y.position(rule.y)
            svg += "<line class=\"rule\" data-value=\"\(rule.y)\" x1=\"\(f(Self.plotLeft))\" x2=\"\(f(right))\" "
            svg += "y1=\"\(f(py))\" y2=\"\(f(py))\" stroke=\"#000\" stroke-dasharray=\"6 4\">"
            svg += "<title>\(esc(rule.label))</title></line>\n"
            svg +=
                "<text class=\"rule-label\" x=\"\(f(Self.plotLeft + 4))\" y=\"\(f(py - 4))\">\(esc(rule.label))</text>\n"
        }
        // The series: whiskers under the line, the dots (with their hover text) over it.
        for item in series {
            let points = item.points.sorted { $0.x < $1.x }
            let coordinates = points.map { "\(f(x.position($0.x))),\(f(y.position($0.median)))" }
            svg += "<g class=\"series\" data-name=\"\(esc(item.name))\">\n"
            for point in points where point.high > point.low {
                let px = x.position(point.x)
                svg += "<line class=\"whisker\" x1=\"\(f(px))\" x2=\"\(f(px))\" y1=\"\(f(y.position(point.low)))\" "
                svg += "y2=\"\(f(y.position(point.high)))\" stroke=\"\(item.color)\" stroke-opacity=\"0.5\"/>\n"
            }
            svg +=
                "<polyline class=\"line\" data-points=\"\(points.count)\" points=\"\(coordinates.joined(separator: " "))\""
            svg += " fill=\"none\" stroke=\"\(item.color)\" stroke-width=\"1.8\""
            svg += (item.dash.map { " stroke-dasharray=\"\($0)\"" } ?? "") + "/>\n"
            for point in points {
                let tip =
                    "\(item.name)\n\(xLabel) \(HTMLReport.number(point.x)): median \(HTMLReport.number(point.median))"
                    + " (min \(HTMLReport.number(point.low)), max \(HTMLReport.number(point.high)), n \(point.count))"
                svg += "<circle class=\"point\" cx=\"\(f(x.position(point.x)))\" cy=\"\(f(y.position(point.median)))\" "
                svg += "r=\"4\" fill=\"\(item.color)\"><title>\(esc(tip))</title></circle>\n"
            }
            svg += "</g>\n"
        }
        for mark in killed {
            let px = x.position(mark.x)
            let py = mark.y.map(y.position) ?? top + 6
            svg += "<path class=\"killed\" d=\"M\(f(px - 5)),\(f(py - 5))L\(f(px + 5)),\(f(py + 5))"
            svg += "M\(f(px - 5)),\(f(py + 5))L\(f(px + 5)),\(f(py - 5))\" stroke=\"\(mark.color)\" "
            svg += "stroke-width=\"3\"><title>\(esc(mark.note))</title></path>\n"
        }
        for mark in failed {
            let px = x.position(mark.x)
            svg += "<path class=\"failed\" d=\"M\(f(px - 4)),\(f(bottom - 12))L\(f(px + 4)),\(f(bottom - 4))"
            svg += "M\(f(px - 4)),\(f(bottom - 4))L\(f(px + 4)),\(f(bottom - 12))\" stroke=\"#c0392b\" "
            svg += "stroke-width=\"2\"><title>\(esc(mark.note))</title></path>\n"
        }
        return svg + "</svg>\n"
    }

    private func legendKey(_ kind: String, color: String, dash: String?, x: Double, y: Double) -> String {
        switch kind {
        case "killed", "failed":
            return "<path d=\"M\(f(x + 7)),\(f(y - 4))L\(f(x + 15)),\(f(y + 4))M\(f(x + 7)),\(f(y + 4))"
                + "L\(f(x + 15)),\(f(y - 4))\" stroke=\"\(color)\" stroke-width=\"\(kind == "killed" ? 3 : 2)\"/>"
        default:
            return "<line x1=\"\(f(x))\" x2=\"\(f(x + 22))\" y1=\"\(f(y))\" y2=\"\(f(y))\" stroke=\"\(color)\" "
                + "stroke-width=\"2\"\(dash.map { " stroke-dasharray=\"\($0)\"" } ?? "")/>"
        }
    }

    private func esc(_ text: String) -> String { HTMLReport.escape(text) }
    private func f(_ value: Double) -> String { String(format: "%.1f", value) }
}
