import Foundation

/// One self-contained HTML page of results (`stacklab report --html`): per scenario, the environment of each
/// run, a summary table, the charts `scripts/plot.py` would draw (`ChartPlan`: lines against the swept
/// parameter, the watchdog deadline, bars where nothing is swept; inline SVG, values on hover through
/// `<title>`), a bar chart per metric behind a disclosure, the phase breakdown where the workload records
/// phases, and — when several files hold the same scenario — the comparison of each against the first, with
/// verdicts and p-values. Killed launches are marked in the table and the charts. Nothing is fetched at view
/// time: no script or style comes from the network.
public struct HTMLReport {
    /// One result CSV and its `.env.json` sidecar, if it has one.
    public struct Input {
        public let file: String
        public let table: ResultTable
        public let environment: EnvironmentRecord?
    }

    public let inputs: [Input]
    /// The comparisons' threshold and significance level.
    public var threshold = 0.10
    public var alpha = 0.05

    /// Reads each CSV and the sidecar beside it.
    public init(files: [String]) throws {
        inputs = try files.map { file in
            let url = URL(fileURLWithPath: file)
            let sidecar = url.deletingPathExtension().appendingPathExtension("env.json")
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            let environment = (try? Data(contentsOf: sidecar)).flatMap {
                try? decoder.decode(EnvironmentRecord.self, from: $0)
            }
            return Input(file: file, table: try ResultTable(contentsOf: url), environment: environment)
        }
    }

    /// The colours of the runs in a chart, in file order.
    static let palette = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1"]

    /// The whole page.
    public func render() throws -> String {
        var scenarios: [(name: String, inputs: [Input])] = []
        for input in inputs {
            let name = input.table.rows.first.flatMap { input.table.value("scenario", in: $0) } ?? input.file
            if let index = scenarios.firstIndex(where: { $0.name == name }) {
                scenarios[index].inputs.append(input)
            } else {
                scenarios.append((name, [input]))
            }
        }
        var body =
            "<h1>stacklab report</h1>\n<p class=\"files\">"
            + inputs.map { "<code>\(Self.escape($0.file))</code>" }.joined(separator: ", ") + "</p>\n"
        for scenario in scenarios {
            body += try section(scenario.name, inputs: scenario.inputs)
        }
        return Self.page(title: "stacklab report", body: body)
    }

    /// What a reader looks for first comes first: the verdicts, the charts, then each file's environment and
    /// table, then every metric's bars and the phases.
    private func section(_ name: String, inputs: [Input]) throws -> String {
        var html = "<section>\n<h2>Scenario <code>\(Self.escape(name))</code></h2>\n"
        if inputs.count > 1 {
            for current in inputs.dropFirst() {
                html += try comparison(baseline: inputs[0], current: current)
            }
        }
        let data = inputs.map { ReportData($0.table) }
        let names = inputs.enumerated().map { Self.runName($1, index: $0) }
        let plan = ChartPlan.choose(workload: inputs.first?.environment?.workload, runs: data)
        let lineCharts = plan.charts(data, names: names).filter { chart in
            chart.series.contains { !$0.points.isEmpty } || !chart.killed.isEmpty
        }
        html += "<h3>Charts</h3>\n<div class=\"charts\">\n"
        if lineCharts.isEmpty {
            for metric in plan.barMetrics(data) {
                html += ReportChart.bars(metric: metric, runs: data, names: names)
            }
        } else {
            html += lineCharts.map { $0.svg() }.joined()
        }
        html += "</div>\n"
        if !lineCharts.isEmpty {
            html += "<p class=\"note\">Dots are medians (hover one for its min, max and runs), whiskers min–max"
            html +=
                inputs.count > 1
                ? "; solid lines are \(Self.escape(names[0])), dashed the later files.</p>\n" : ".</p>\n"
        }
        for (index, input) in inputs.enumerated() {
            html += "<h3><span class=\"swatch\" style=\"background:\(Self.color(index))\"></span>"
            html += "\(Self.escape(Self.runName(input, index: index)))</h3>\n"
            html += environment(input)
            html += summaryTable(data[index])
        }
        let metrics = data.flatMap(\.metrics).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        html += "<details><summary>Every metric, per cell (\(metrics.count) bar charts)</summary>\n"
        html += "<div class=\"charts\">\n"
        for metric in metrics {
            html += ReportChart.bars(metric: metric, runs: data, names: names)
        }
        html += "</div>\n</details>\n"
        for (index, run) in data.enumerated() where !run.phaseMetrics.isEmpty {
            html += "<h3>Phases of \(Self.escape(Self.runName(inputs[index], index: index)))</h3>\n"
            html += ReportChart.phases(run)
        }
        return html + "</section>\n"
    }

    static func runName(_ input: Input, index: Int) -> String {
        let commit = input.environment.map { " @ " + String($0.gitCommit.prefix(12)) } ?? ""
        return "\(URL(fileURLWithPath: input.file).lastPathComponent)\(commit)"
    }

    static func color(_ index: Int) -> String { palette[index % palette.count] }

    private func environment(_ input: Input) -> String {
        guard let env = input.environment else {
            return "<p class=\"note\">No <code>.env.json</code> sidecar beside this CSV: environment unknown.</p>\n"
        }
        let rows: [(String, String)] = [
            ("commit", env.gitCommit), ("host", "\(env.host), \(env.cores) cores, \(env.memoryBytes / 1_048_576) MiB"),
            ("system", env.operatingSystem), ("swift", env.swift), ("sqlite", env.sqlite), ("lmdb", env.lmdb),
            ("workload", env.workload),
            ("repetitions", "\(env.repetitions) (warm-up \(env.warmup))\(env.quick ? ", --quick" : "")"),
            ("shard", env.shard ?? "all cells"), ("started", ISO8601DateFormatter().string(from: env.started)),
        ]
        return "<table class=\"env\">"
            + rows.map { "<tr><th>\(Self.escape($0))</th><td>\(Self.escape($1))</td></tr>" }.joined()
            + "</table>\n"
    }

    /// One row per cell: its parameters in columns of their own (a label of them all made the first column
    /// the widest of the page), the run counts, then each metric's median.
    private func summaryTable(_ data: ReportData) -> String {
        let parameters = data.parameterColumns.filter { column in
            data.cells.contains { !($0.parameters[column] ?? "").isEmpty }
        }
        var html = "<div class=\"scroll\"><table class=\"summary\"><thead><tr>"
        html += (parameters.isEmpty ? ["cell"] : parameters).map { "<th class=\"param\">\(Self.escape($0))</th>" }
            .joined()
        html += "<th>runs</th><th>errors</th>"
        html += data.metrics.map { "<th>\(Self.escape($0))</th>" }.joined() + "</tr></thead><tbody>\n"
        for cell in data.cells {
            let killed = cell.killed > 0
            html += "<tr\(killed ? " class=\"killed\"" : "")>"
            let values = parameters.isEmpty ? [cell.label] : parameters.map { cell.parameters[$0] ?? "" }
            for (index, value) in values.enumerated() {
                html += "<td class=\"param\">\(Self.escape(value))"
                if killed, index == 0 { html += " <span class=\"badge\">killed \(cell.killed) of \(cell.runs)</span>" }
                html += "</td>"
            }
            html += "<td>\(cell.runs)</td><td>\(cell.errors)</td>"
            for metric in data.metrics {
                html += "<td>\(cell.values[metric]?.median.map(Self.number) ?? "")</td>"
            }
            html += "</tr>\n"
        }
        return html + "</tbody></table></div>\n<p class=\"note\">Medians over the runs without an error.</p>\n"
    }

    private func comparison(baseline: Input, current: Input) throws -> String {
        let comparison = try ResultComparison(
            baseline: baseline.table, current: current.table, threshold: threshold, alpha: alpha)
        let all = try comparison.rows()
        let rows = all.filter { $0.verdict != .unchanged }
        let labels = CellLabels(all, columns: comparison.cellColumns)
        var html = "<h3>Comparison: \(Self.escape(URL(fileURLWithPath: current.file).lastPathComponent)) against "
        html += "\(Self.escape(URL(fileURLWithPath: baseline.file).lastPathComponent))</h3>\n"
        html += "<p class=\"note\">"
        if !labels.caption.isEmpty {
            html += "\(Self.escape(labels.caption.prefix(1).uppercased() + labels.caption.dropFirst())). "
        }
        html += "Threshold \(String(format: "%g", threshold * 100))%, Mann-Whitney U two-sided, "
        html += "alpha \(alpha); unchanged metrics not listed.</p>\n"
        guard !rows.isEmpty else { return html + "<p>Every metric is within the threshold.</p>\n" }
        html += "<div class=\"scroll\"><table class=\"verdicts\"><thead><tr><th>verdict</th>"
        html += labels.varying.map { "<th class=\"param\">\(Self.escape($0))</th>" }.joined()
        html +=
            "<th class=\"param\">metric</th><th>baseline</th><th>current</th><th>change</th><th>p</th></tr></thead><tbody>\n"
        let order: [ComparisonVerdict] = [.regressed, .changed, .inconclusive, .improved]
        for verdict in order {
            for row in rows where row.verdict == verdict {
                html += "<tr class=\"\(verdict.rawValue)\"><td>\(verdict.rawValue)</td>"
                html += labels.varying.map { "<td class=\"param\">\(Self.escape(row.cell[$0] ?? ""))</td>" }.joined()
                html +=
                    "<td class=\"param\">\(Self.escape(row.metric))</td><td>\(row.baselineMedian.map(Self.number) ?? "–")</td>"
                html += "<td>\(row.currentMedian.map(Self.number) ?? "–")</td>"
                html += "<td>\(row.relativeChange.map { String(format: "%+.1f%%", $0 * 100) } ?? "–")</td>"
                html += "<td>\(row.pValue.map { String(format: "%.3f", $0) } ?? "–")</td></tr>\n"
            }
        }
        return html + "</tbody></table></div>\n"
    }

    static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e9 { return String(format: "%.0f", value) }
        return String(format: abs(value) < 10 ? "%.3f" : "%.1f", value)
    }

    /// Text made safe for HTML content and attributes.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// The page around `body`: inline style, and a script that checks the charts drew (a headless browser
    /// reads its verdict from the title).
    static func page(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <title>\(escape(title))</title>
        <style>
        * { box-sizing: border-box; }
        body { font: 14px/1.4 system-ui, sans-serif; margin: 2em auto; padding: 0 1.5em; color: #222; max-width: 1240px; }
        code { font-size: 90%; overflow-wrap: anywhere; }
        table { border-collapse: collapse; margin: 0.5em 0 1em; }
        th, td { border: 1px solid #ddd; padding: 2px 8px; text-align: right; white-space: nowrap; }
        th:first-child, td:first-child, .env td { text-align: left; }
        .summary td.param, .summary th.param, .verdicts td.param, .verdicts th.param { text-align: left; }
        .env th { text-align: left; background: #f6f6f6; }
        .env td { white-space: normal; overflow-wrap: anywhere; }
        /* A wide table scrolls inside the page, its cell column held in place; the shadow says there is more. */
        .scroll { overflow-x: auto; max-width: 100%; margin: 0.5em 0 1em;
          background: linear-gradient(to left, #fff 30%, rgba(255,255,255,0)) right / 40px 100% no-repeat local,
            radial-gradient(farthest-side at 100% 50%, rgba(0,0,0,.18), rgba(0,0,0,0)) right / 12px 100% no-repeat scroll; }
        .scroll table { margin: 0; }
        .summary td:first-child, .summary th:first-child { position: sticky; left: 0; background: #fff; }
        tr.killed td { background: #fde8e8; }
        tr.killed td:first-child { background: #fde8e8; }
        .badge { background: #c0392b; color: #fff; border-radius: 3px; padding: 0 4px; font-size: 85%; white-space: nowrap; }
        tr.regressed td { background: #fde8e8; font-weight: bold; }
        tr.improved td { background: #e8f6ea; }
        tr.inconclusive td { color: #777; }
        .note { color: #666; font-size: 90%; }
        .swatch { display: inline-block; width: 0.8em; height: 0.8em; margin-right: 0.4em; }
        .charts { display: flex; flex-wrap: wrap; gap: 1em 1.5em; align-items: flex-start; }
        .charts svg { display: block; max-width: 100%; height: auto; }
        details { margin: 1em 0; }
        summary { cursor: pointer; color: #444; }
        svg text { font: 11px system-ui, sans-serif; fill: #333; }
        svg text.title { font-weight: bold; }
        svg .bar:hover, svg .phase:hover { opacity: 0.75; }
        svg .point:hover { stroke: #000; stroke-width: 2; }
        </style>
        </head>
        <body>
        \(body)<script>
        // The check a headless browser reads from the title: "ok …" when every chart drew, else what is wrong
        // (an empty line chart, no chart at all, a page wider than the window, a script error).
        (function () {
          var problems = [];
          window.addEventListener("error", function (event) {
            document.title = "script error: " + event.message + " | " + document.title;
          });
          var bars = document.querySelectorAll("svg .bar, svg .phase").length;
          var charts = document.querySelectorAll("svg.line-chart");
          var points = 0;
          charts.forEach(function (chart) {
            var lines = chart.querySelectorAll("polyline.line");
            var drawn = 0;
            lines.forEach(function (line) { drawn += line.points.numberOfItems; });
            points += drawn;
            var marks = chart.querySelectorAll(".killed").length;
            var box = chart.getBoundingClientRect();
            if ((drawn === 0 && marks === 0) || box.width === 0 || box.height === 0) {
              problems.push("empty line chart " + (chart.getAttribute("aria-label") || ""));
            }
          });
          if (bars === 0 && charts.length === 0) { problems.push("no chart"); }
          if (document.documentElement.scrollWidth > document.documentElement.clientWidth) {
            problems.push("page wider than the window (" + document.documentElement.scrollWidth + " > " +
              document.documentElement.clientWidth + ")");
          }
          document.title = (problems.length ? "problem: " + problems.join("; ") :
            "ok " + charts.length + " line charts (" + points + " points), " + bars + " bars") + " | " + document.title;
        })();
        </script>
        </body>
        </html>

        """
    }
}
