import Foundation

/// The report's charts as inline SVG: a bar per cell and run for one metric (the median, a whisker from the
/// smallest to the largest value), and the import phases stacked per cell. Each bar's `<title>` is what a
/// browser shows on hover.
enum ReportChart {
    static let width = 540.0
    static let labelWidth = 250.0
    static let barHeight = 12.0

    /// One metric's chart over the cells of every run (runs of one scenario share their cells).
    static func bars(metric: String, runs: [ReportData], names: [String]) -> String {
        let labels = runs.flatMap { $0.cells.map(\.label) }.reduce(into: [String]()) {
            if !$0.contains($1) { $0.append($1) }
        }
        var shortLabels: [String: String] = [:]
        for run in runs { for cell in run.cells { shortLabels[cell.label] = run.shortLabel(cell) } }
        let largest = runs.flatMap { $0.cells.compactMap { $0.values[metric]?.max() } }.max() ?? 0
        let scale = largest > 0 ? (width - labelWidth - 60) / largest : 0
        let groupHeight = barHeight * Double(runs.count) + 6
        let height = 24 + groupHeight * Double(labels.count) + 8
        let polarity = ResultComparison.polarity(of: metric)
        let direction =
            polarity == .lowerIsBetter ? "lower is better" : polarity == .higherIsBetter ? "higher is better" : "count"
        var svg = svgOpen(height: height, label: metric)
        svg += "<text x=\"0\" y=\"14\" font-weight=\"bold\">\(HTMLReport.escape(metric)) (\(direction))</text>\n"
        for (row, label) in labels.enumerated() {
            let top = 24 + groupHeight * Double(row)
            svg += "<text x=\"\(labelWidth - 6)\" y=\"\(f(top + groupHeight / 2 + 3))\" text-anchor=\"end\">"
            svg +=
                "\(HTMLReport.escape(short(shortLabels[label] ?? label)))<title>\(HTMLReport.escape(label))</title></text>\n"
            for (index, run) in runs.enumerated() {
                guard let cell = run.cells.first(where: { $0.label == label }), let values = cell.values[metric],
                    let median = values.median, let low = values.min(), let high = values.max()
                else { continue }
                let y = top + barHeight * Double(index)
                let killed = cell.killed > 0
                let tip =
                    "\(names[index]): \(label)\n\(metric) median \(HTMLReport.number(median)) "
                    + "(min \(HTMLReport.number(low)), max \(HTMLReport.number(high)), n \(values.count))"
                    + (killed ? "\nkilled by the watchdog in \(cell.killed) of \(cell.runs) runs" : "")
                svg += "<rect class=\"bar\" x=\"\(f(labelWidth))\" y=\"\(f(y))\" width=\"\(f(max(1, median * scale)))\""
                svg += " height=\"\(f(barHeight - 2))\" fill=\"\(HTMLReport.color(index))\""
                svg += killed ? " stroke=\"#c0392b\" stroke-width=\"2\"" : ""
                svg += "><title>\(HTMLReport.escape(tip))</title></rect>\n"
                let mid = y + (barHeight - 2) / 2
                svg += "<line x1=\"\(f(labelWidth + low * scale))\" x2=\"\(f(labelWidth + high * scale))\" "
                svg += "y1=\"\(f(mid))\" y2=\"\(f(mid))\" stroke=\"#222\"/>\n"
                svg += "<text x=\"\(f(labelWidth + max(median, high) * scale + 4))\" y=\"\(f(y + barHeight - 3))\">"
                svg += "\(HTMLReport.number(median))\(killed ? " ✕" : "")</text>\n"
            }
        }
        return svg + "</svg>\n"
    }

    /// Where each cell's import time went: the phases' medians stacked left to right.
    static func phases(_ run: ReportData) -> String {
        let phases = run.phaseMetrics
        let colors = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948"]
        let totals = run.cells.map { cell in phases.compactMap { cell.values[$0]?.median }.reduce(0, +) }
        let largest = totals.max() ?? 0
        let scale = largest > 0 ? (width - labelWidth - 60) / largest : 0
        let legendRows = 2.0
        let height = 40 + 14 * (legendRows - 1) + (barHeight + 4) * Double(run.cells.count)
        var svg = svgOpen(height: height, label: "phases")
        var x = 0.0
        var legendY = 4.0
        for (index, phase) in phases.enumerated() {
            if x + 24 + Double(phase.count) * 6.5 > width {
                x = 0
                legendY += 14
            }
            svg +=
                "<rect x=\"\(f(x))\" y=\"\(f(legendY))\" width=\"10\" height=\"10\" fill=\"\(colors[index % colors.count])\"/>"
            svg += "<text x=\"\(f(x + 14))\" y=\"\(f(legendY + 9))\">\(HTMLReport.escape(phase))</text>\n"
            x += 14 + Double(phase.count) * 6.5 + 10
        }
        for (row, cell) in run.cells.enumerated() {
            let y = 24 + 14 * (legendRows - 1) + (barHeight + 4) * Double(row)
            svg += "<text x=\"\(labelWidth - 6)\" y=\"\(f(y + barHeight - 3))\" text-anchor=\"end\">"
            svg +=
                "\(HTMLReport.escape(short(run.shortLabel(cell))))<title>\(HTMLReport.escape(cell.label))</title></text>\n"
            var left = labelWidth
            for (index, phase) in phases.enumerated() {
                guard let median = cell.values[phase]?.median, median > 0 else { continue }
                svg += "<rect class=\"phase\" x=\"\(f(left))\" y=\"\(f(y))\" width=\"\(f(median * scale))\" "
                svg += "height=\"\(f(barHeight))\" fill=\"\(colors[index % colors.count])\">"
                svg += "<title>\(HTMLReport.escape("\(cell.label)\n\(phase) median \(HTMLReport.number(median))"))"
                svg += "</title></rect>\n"
                left += median * scale
            }
            svg +=
                "<text x=\"\(f(left + 4))\" y=\"\(f(y + barHeight - 3))\">\(HTMLReport.number(totals[row])) ms</text>\n"
        }
        return svg + "</svg>\n"
    }

    private static func svgOpen(height: Double, label: String) -> String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(f(width))\" height=\"\(f(height))\" "
            + "viewBox=\"0 0 \(f(width)) \(f(height))\" role=\"img\" aria-label=\"\(HTMLReport.escape(label))\">\n"
    }

    /// A label that fits left of the bars; the full one is in its `<title>`.
    private static func short(_ label: String) -> String {
        label.count <= 36 ? label : String(label.prefix(35)) + "…"
    }

    private static func f(_ value: Double) -> String { String(format: "%.1f", value) }
}
