import Foundation
import LabCore
import Testing

/// The report's line charts as SVG: log axes ticked at powers of ten, the deadline rule at its value's height,
/// one polyline per series with a point per x, hover text on every point.
@Suite("Report line charts (SVG)")
struct LineChartTests {
    /// The values of `attribute` on the elements whose markup starts with `prefix`, in document order.
    static func attributes(_ attribute: String, of prefix: String, in svg: String) -> [String] {
        svg.components(separatedBy: prefix).dropFirst().compactMap { element in
            guard let range = element.range(of: " \(attribute)=\"") else { return nil }
            let rest = element[range.upperBound...]
            return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
        }
    }

    static func chart() -> LineChart {
        let point = { (x: Double, y: Double) in LineChart.Point(x: x, median: y, low: y - 2, high: y + 2, count: 3) }
        var chart = LineChart(
            title: "sqlite: time_to_first_screen_ms", xLabel: "objects in the store", yLabel: "ms", xLog: true,
            yLog: true,
            series: [
                .init(
                    name: "sync", color: "#d62728", points: [point(1000, 20), point(10_000, 120), point(100_000, 1100)]),
                .init(name: "async", color: "#1f77b4", dash: "5 3", points: [point(1000, 40), point(100_000, 41)]),
            ])
        chart.rules = [.init(y: 2000, label: "watchdog deadline 2000 ms")]
        chart.killed = [.init(x: 100_000, y: 2000, color: "#d62728", note: "sync: killed in 2 of 5 runs")]
        return chart
    }

    @Test("A log axis spans whole decades and its labelled ticks are the powers of ten")
    func logTicks() {
        let svg = Self.chart().svg()
        let xTicks = Self.attributes("data-value", of: "<text class=\"tick x\"", in: svg).compactMap(Double.init)
        #expect(xTicks == [1000, 10_000, 100_000])
        let yTicks = Self.attributes("data-value", of: "<text class=\"tick y\"", in: svg).compactMap(Double.init)
        // 18 (the lowest whisker) to 2000 (the deadline): 10 to 10 000.
        #expect(yTicks == [10, 100, 1000, 10_000])
        for tick in xTicks + yTicks {
            #expect(pow(10, log10(tick).rounded()) == tick, "\(tick) is not a power of ten")
        }
        #expect(svg.contains(">10k</text>"), "tick labels are short numbers")
        #expect(svg.contains("objects in the store (log)"))
    }

    @Test("A linear axis starts at zero and steps evenly")
    func linearTicks() {
        let scale = ChartScale(values: [28_178, 32_300, 13_671], log: false, from: 0, to: 100)
        #expect(scale.ticks.first == 0)
        let steps = zip(scale.ticks, scale.ticks.dropFirst()).map { $1 - $0 }
        #expect(Set(steps).count == 1)
        #expect(scale.upper >= 32_300)
        #expect(scale.minorTicks.isEmpty)
    }

    @Test("A log axis with a zero on it turns linear, so a launch without a stall still has its point")
    func zeroOnLogAxis() {
        var chart = Self.chart()
        chart.rules = []
        chart.killed = []
        chart.series[1].points[0] = .init(x: 1000, median: 0, low: 0, high: 0, count: 3)
        let svg = chart.svg()
        let yTicks = Self.attributes("data-value", of: "<text class=\"tick y\"", in: svg).compactMap(Double.init)
        #expect(yTicks.first == 0)
        #expect(!svg.contains("ms (log)"))
        #expect(svg.contains("objects in the store (log)"), "the x axis keeps its log scale")
        #expect(Self.attributes("data-points", of: "<polyline class=\"line\"", in: svg) == ["3", "2"])
    }

    @Test("The deadline is a line at its value's height, and the killed launch is drawn on it")
    func deadline() throws {
        let chart = Self.chart()
        let svg = chart.svg()
        let rule = try #require(svg.components(separatedBy: "<line class=\"rule\"").dropFirst().first)
        let y1 = try #require(Self.attributes("y1", of: "<line class=\"rule\"", in: svg).first.flatMap(Double.init))
        #expect(rule.contains("watchdog deadline 2000 ms"))
        // Where the y axis puts 2000: its tick for 1000 and 10 000 bracket it, a third of a decade up from 1000.
        let ticks = Self.attributes("y", of: "<text class=\"tick y\"", in: svg).compactMap(Double.init)
        let decade = ticks[2] - ticks[3]  // pixels from 10 000 down to 1000 (labels sit 4 px below their line)
        let expected = (ticks[2] - 4) - decade * log10(2)
        #expect(abs(y1 - expected) < 0.2, "deadline at y \(y1), expected \(expected)")
        let killed = try #require(svg.components(separatedBy: "<path class=\"killed\"").dropFirst().first)
        #expect(killed.contains("\(String(format: "%.1f", y1 - 5))L"), "the ✕ is centred on the deadline")
        #expect(svg.contains("killed (1)"), "and in the legend")
    }

    @Test("One polyline per series, a point per x, each with its values on hover")
    func series() {
        let svg = Self.chart().svg()
        #expect(Self.attributes("data-points", of: "<polyline class=\"line\"", in: svg) == ["3", "2"])
        let points = Self.attributes("points", of: "<polyline class=\"line\"", in: svg)
        #expect(points.map { $0.split(separator: " ").count } == [3, 2])
        #expect(svg.components(separatedBy: "<circle class=\"point\"").count - 1 == 5)
        #expect(svg.contains("sync\nobjects in the store 10000: median 120 (min 118, max 122, n 3)"))
        #expect(svg.contains("stroke-dasharray=\"5 3\""), "the second series is dashed")
        #expect(svg.contains(">sync</text>") && svg.contains(">async</text>"), "the legend names each series")
    }
}
