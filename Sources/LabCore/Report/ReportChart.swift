import Foundation

/// The report's bar charts as inline SVG: a bar per cell and run for one value (the median, a whisker from the
/// smallest to the largest value), and a metric group stacked per cell (where a run's time went). Each bar's
/// `<title>` is what a browser shows on hover.
enum ReportChart {
    static let width = 540.0
    static let labelWidth = 250.0
    static let barHeight = 12.0

    /// One value's chart over the cells of every run (runs of one scenario share their cells). A cell whose runs
    /// raised a declared bad flag (a launch the watchdog killed) is outlined and says so.
    static func bars(value: ChartSpec.Value, runs: [ReportData], names: [String]) -> (svg: String, height: Double) {
        let metric = value.name
        let labels = runs.flatMap { $0.cells.map(\.label) }.reduce(into: [String]()) {
            if !$0.contains($1) { $0.append($1) }
        }
        var shortLabels: [String: String] = [:]
        for run in runs { for cell in run.cells { shortLabels[cell.label] = run.shortLabel(cell) } }
        let largest = runs.flatMap { $0.cells.compactMap { $0.values(of: value).max() } }.max() ?? 0
        let scale = largest > 0 ? (width - labelWidth - 60) / largest : 0
        let groupHeight = barHeight * Double(runs.count) + 6
        let height = 24 + groupHeight * Double(labels.count) + 8
        let polarity = runs.lazy.compactMap { $0.declarations[metric]?.polarity }.first
        let direction =
            polarity == .lowerIsBetter
            ? "lower is better"
            : polarity == .higherIsBetter ? "higher is better" : polarity == .neutral ? "count" : "undeclared"
        var svg = svgOpen(height: height, label: metric)
        svg +=
            "<text class=\"title\" x=\"0\" y=\"14\" font-weight=\"bold\">\(HTMLReport.escape(metric)) (\(direction))</text>\n"
        for (row, label) in labels.enumerated() {
            let top = 24 + groupHeight * Double(row)
            svg += "<text x=\"\(labelWidth - 6)\" y=\"\(f(top + groupHeight / 2 + 3))\" text-anchor=\"end\">"
            svg +=
                "\(HTMLReport.escape(short(shortLabels[label] ?? label)))<title>\(HTMLReport.escape(label))</title></text>\n"
            for (index, run) in runs.enumerated() {
                let flags = run.badFlags
                guard let cell = run.cells.first(where: { $0.label == label }) else { continue }
                let values = cell.values(of: value)
                let y = top + barHeight * Double(index)
                let failure = "\(names[index]): \(label)\nfailed in \(cell.errors) of \(cell.runs) runs"
                guard let median = values.median, let low = values.min(), let high = values.max() else {
                    // No value to draw: a failed cell is marked and says so, rather than left blank.
                    if cell.errors > 0 {
                        svg += failedMark(x: labelWidth + 6, y: y + (barHeight - 2) / 2, note: failure)
                        svg += "<text x=\"\(f(labelWidth + 14))\" y=\"\(f(y + barHeight - 3))\" fill=\"#c0392b\">"
                        svg += "failed in \(cell.errors) of \(cell.runs) runs</text>\n"
                    }
                    continue
                }
                let raised = flags.map { ($0, cell.count(flag: $0)) }.filter { $0.1 > 0 }
                let tip =
                    "\(names[index]): \(label)\n\(metric) median \(HTMLReport.number(median)) "
                    + "(min \(HTMLReport.number(low)), max \(HTMLReport.number(high)), n \(values.count))"
                    + raised.map { "\n\($0.0) in \($0.1) of \(cell.runs) runs" }.joined()
                svg += "<rect class=\"bar\" x=\"\(f(labelWidth))\" y=\"\(f(y))\" width=\"\(f(max(1, median * scale)))\""
                svg += " height=\"\(f(barHeight - 2))\" fill=\"\(HTMLReport.color(index))\""
                svg += raised.isEmpty ? "" : " stroke=\"#c0392b\" stroke-width=\"2\""
                svg += "><title>\(HTMLReport.escape(tip))</title></rect>\n"
                let mid = y + (barHeight - 2) / 2
                svg += "<line x1=\"\(f(labelWidth + low * scale))\" x2=\"\(f(labelWidth + high * scale))\" "
                svg += "y1=\"\(f(mid))\" y2=\"\(f(mid))\" stroke=\"#222\"/>\n"
                let end = labelWidth + max(median, high) * scale
                svg += "<text x=\"\(f(end + 4))\" y=\"\(f(y + barHeight - 3))\">"
                svg += "\(HTMLReport.number(median))\(raised.isEmpty ? "" : " ✕")"
                svg += cell.errors > 0 ? " (\(cell.errors) of \(cell.runs) failed)" : ""
                svg += "</text>\n"
                if cell.errors > 0 { svg += failedMark(x: labelWidth - 2, y: mid, note: failure) }
            }
        }
        return (svg + "</svg>\n", height)
    }

    /// The medians of `metrics` (a group, such as the import's phases) stacked left to right, a bar per cell.
    static func stacked(
        metrics: [String], cells: [ReportData.Cell], run: ReportData, title: String, omitting panel: [String] = []
    ) -> (svg: String, height: Double) {
        let colors = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7"]
        let totals = cells.map { cell in metrics.compactMap { cell.values[$0]?.median }.reduce(0, +) }
        let largest = totals.max() ?? 0
        let scale = largest > 0 ? (width - labelWidth - 60) / largest : 0
        // The legend wraps onto as many rows as it needs under the title.
        var legend: [(metric: String, x: Double, row: Int)] = []
        var x = 0.0
        var row = 0
        for metric in metrics {
            let entry = 14 + Double(metric.count) * 6.5 + 10
            if x + entry > width, x > 0 {
                x = 0
                row += 1
            }
            legend.append((metric, x, row))
            x += entry
        }
        let legendTop = 22.0
        let barsTop = legendTop + 14 * Double(row + 1) + 6
        let height = barsTop + (barHeight + 4) * Double(cells.count) + 4
        var svg = svgOpen(height: height, label: title)
        svg += "<text class=\"title\" x=\"0\" y=\"14\" font-weight=\"bold\">\(HTMLReport.escape(title))</text>\n"
        for (index, entry) in legend.enumerated() {
            let y = legendTop + 14 * Double(entry.row)
            svg += "<rect x=\"\(f(entry.x))\" y=\"\(f(y))\" width=\"10\" height=\"10\" "
            svg += "fill=\"\(colors[index % colors.count])\"/>"
            svg += "<text x=\"\(f(entry.x + 14))\" y=\"\(f(y + 9))\">\(HTMLReport.escape(entry.metric))</text>\n"
        }
        for (index, cell) in cells.enumerated() {
            let y = barsTop + (barHeight + 4) * Double(index)
            svg += "<text x=\"\(labelWidth - 6)\" y=\"\(f(y + barHeight - 3))\" text-anchor=\"end\">"
            svg +=
                "\(HTMLReport.escape(short(run.shortLabel(cell, omitting: panel))))<title>\(HTMLReport.escape(cell.label))</title></text>\n"
            var left = labelWidth
            for (position, metric) in metrics.enumerated() {
                guard let median = cell.values[metric]?.median, median > 0 else { continue }
                svg += "<rect class=\"phase\" x=\"\(f(left))\" y=\"\(f(y))\" width=\"\(f(median * scale))\" "
                svg += "height=\"\(f(barHeight))\" fill=\"\(colors[position % colors.count])\">"
                svg += "<title>\(HTMLReport.escape("\(cell.label)\n\(metric) median \(HTMLReport.number(median))"))"
                svg += "</title></rect>\n"
                left += median * scale
            }
            svg +=
                "<text x=\"\(f(left + 4))\" y=\"\(f(y + barHeight - 3))\">\(HTMLReport.number(totals[index]))</text>\n"
        }
        return (svg + "</svg>\n", height)
    }

    /// A red ✕ for failed runs at (x, y), with what failed on hover.
    static func failedMark(x: Double, y: Double, note: String) -> String {
        "<path class=\"failed\" d=\"M\(f(x - 4)),\(f(y - 4))L\(f(x + 4)),\(f(y + 4))M\(f(x - 4)),\(f(y + 4))L\(f(x + 4)),"
            + "\(f(y - 4))\" stroke=\"#c0392b\" stroke-width=\"2\"><title>\(HTMLReport.escape(note))</title></path>\n"
    }

    static func svgOpen(height: Double, label: String) -> String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(f(width))\" height=\"\(f(height))\" "
            + "viewBox=\"0 0 \(f(width)) \(f(height))\" role=\"img\" aria-label=\"\(HTMLReport.escape(label))\">\n"
    }

    /// A label that fits left of the bars (`limit` characters); the full one is in its `<title>`.
    static func short(_ label: String, limit: Int = 36) -> String {
        label.count <= limit ? label : String(label.prefix(limit - 1)) + "…"
    }

    static func f(_ value: Double) -> String { String(format: "%.1f", value) }
}
