import Foundation

/// A standalone SVG file of a scenario's charts (`stacklab report --charts DIR`), for a README or a pull
/// request: a title, the charts on a grid (each declared chart starts a row, its panels side by side), and a
/// footer naming each file's commit, machine and toolchain from its sidecar. Text stays text, hover values
/// stay in `<title>`s, and a white background keeps it readable on a dark page.
enum ReportFigure {
    static let margin = 12.0
    static let gap = 20.0
    /// Charts side by side at most.
    static let maximumColumns = 3

    /// The figure of `charts` under `title`, with `footer` lines at the bottom.
    static func svg(title: String, charts: [ChartPlan.Drawn], footer: [String]) -> String {
        // Each declared chart (a row number) starts a new line of the grid; its panels wrap at the column count.
        var groups = Dictionary(grouping: charts, by: \.row).sorted { $0.key < $1.key }.map(\.value)
        // Declared charts of one panel each flow side by side instead.
        if groups.allSatisfy({ $0.count == 1 }) { groups = [charts] }
        let columns = max(1, min(maximumColumns, groups.map(\.count).max() ?? 1))
        let cellWidth = charts.map(\.width).max() ?? LineChart.width
        // Wide enough for the footer's lines too (about 5.6 px per character at its size).
        let footerWidth = Double(footer.map(\.count).max() ?? 0) * 5.6
        let width = max(2 * margin + Double(columns) * cellWidth + Double(columns - 1) * gap, 2 * margin + footerWidth)
        var placed = ""
        var y = margin + 30
        for group in groups {
            for start in stride(from: 0, to: group.count, by: columns) {
                let line = group[start..<min(start + columns, group.count)]
                for (index, chart) in line.enumerated() {
                    let x = margin + Double(index) * (cellWidth + gap)
                    placed += placing(chart.svg, x: x, y: y)
                }
                y += (line.map(\.height).max() ?? 0) + gap
            }
        }
        let footerTop = y
        let height = footerTop + 14 * Double(footer.count) + margin
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(f(width))\" height=\"\(f(height))\" "
        svg += "viewBox=\"0 0 \(f(width)) \(f(height))\" role=\"img\" aria-label=\"\(HTMLReport.escape(title))\">\n"
        svg += "<style>text { font: 11px sans-serif; fill: #333; } text.title { font-weight: bold; } "
        svg += "text.figure-title { font-size: 14px; font-weight: bold; } text.footer { font-size: 10px; fill: #666; } "
        svg += "text.note { fill: #555; }</style>\n"
        svg += "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n"
        svg +=
            "<text class=\"figure-title\" x=\"\(f(margin))\" y=\"\(f(margin + 14))\">\(HTMLReport.escape(title))</text>\n"
        svg += placed
        for (index, line) in footer.enumerated() {
            svg += "<text class=\"footer\" x=\"\(f(margin))\" y=\"\(f(footerTop + 10 + 14 * Double(index)))\">"
            svg += "\(HTMLReport.escape(line))</text>\n"
        }
        return svg + "</svg>\n"
    }

    /// A chart's `<svg>` placed at (x, y) in the figure.
    private static func placing(_ chart: String, x: Double, y: Double) -> String {
        guard chart.hasPrefix("<svg") else { return chart }
        return "<svg x=\"\(f(x))\" y=\"\(f(y))\"" + chart.dropFirst(4)
    }

    /// Where a file came from, in one line: its name, commit, start, repetitions and machine.
    static func footer(file: String, table: ResultTable) -> String {
        let name = URL(fileURLWithPath: file).lastPathComponent
        guard let env = table.environment else { return "\(name) · machine and commit unknown (no sidecar)" }
        let dirty = env.gitCommit.hasSuffix("+dirty")
        let commit = String(env.gitCommit.replacingOccurrences(of: "+dirty", with: "").prefix(10))
        let started = ISO8601DateFormatter().string(from: env.started).prefix(16).replacingOccurrences(
            of: "T", with: " ")
        var run = "\(env.repetitions) repetition\(env.repetitions == 1 ? "" : "s")"
        if env.warmup > 0 { run += ", \(env.warmup) warm-up" }
        if env.quick { run += ", --quick" }
        let memory = String(format: "%.0f GiB", Double(env.memoryBytes) / 1_073_741_824)
        let tools = ([EngineVersion("Swift", env.swift)] + env.engines).filter { !$0.version.isEmpty }
            .map(\.description).joined(separator: ", ")
        return "\(name) · commit \(commit)\(dirty ? " (uncommitted changes)" : "") · \(started) UTC · \(run) · "
            + "machine: \(env.host), \(env.cores) cores, \(memory), \(env.operatingSystem)"
            + (tools.isEmpty ? "" : " · \(tools)")
    }

    private static func f(_ value: Double) -> String { String(format: "%.1f", value) }
}
