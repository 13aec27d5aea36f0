import Foundation

/// One self-contained HTML page of results (`stacklab report --html`): per scenario, the comparison of each
/// file against the first when several hold the scenario (verdicts, ratios and their confidence intervals, and
/// the change per cell drawn), each cell against its reference twin where the run names a reference, the charts the workload declares (`Workload.charts`; lines against a swept parameter, deadline
/// rules, stacked groups, bars where nothing is swept; inline SVG, values on hover through `<title>`), then each
/// file's environment and summary table, and a bar chart per metric behind a disclosure. Polarity, units and
/// groups come from the files' sidecars. Nothing is fetched at view time: no script or style comes from the
/// network. The same charts are written as standalone SVG files by `figures()` (`report --charts`).
public struct HTMLReport {
    /// One result CSV with the sidecar beside it, if it has one; or a comparison CSV (`compare --out`).
    public struct Input {
        public let file: String
        public let table: ResultTable
        public var environment: EnvironmentRecord? { table.environment }
        /// Whether the file is a comparison (`compare --out`) rather than a run's results.
        public var isComparison: Bool {
            table.columns.contains("metric") && table.columns.contains("change_pct")
                && table.columns.contains("verdict")
        }
    }

    public let inputs: [Input]
    /// The workloads the lab knows: their declared charts, by the files' `workload` column.
    public let workloads: WorkloadRegistry
    /// The comparisons' threshold and the confidence of their intervals.
    public var threshold = 0.10
    public var confidence = 0.95
    /// The metrics a comparison's chart shows; empty: the workload's headline metrics.
    public var comparedMetrics: [String] = []

    /// Reads each CSV and the sidecar beside it.
    public init(files: [String], workloads: WorkloadRegistry) throws {
        inputs = try files.map { file in
            Input(file: file, table: try ResultTable(contentsOf: URL(fileURLWithPath: file)))
        }
        self.workloads = workloads
    }

    /// The colours of the runs in a chart, in file order.
    static let palette = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1"]

    /// The files grouped by scenario, in first-seen order; a comparison CSV is a group of its own.
    var scenarios: [(name: String, inputs: [Input])] {
        var scenarios: [(name: String, inputs: [Input])] = []
        for input in inputs {
            let name =
                input.isComparison
                ? "comparison " + URL(fileURLWithPath: input.file).lastPathComponent
                : input.table.rows.first.flatMap { input.table.value("scenario", in: $0) } ?? input.file
            if !input.isComparison, let index = scenarios.firstIndex(where: { $0.name == name }) {
                scenarios[index].inputs.append(input)
            } else {
                scenarios.append((name, [input]))
            }
        }
        return scenarios
    }

    /// The workload of a scenario's files: the sidecar's, else the CSV's `workload` column.
    func workload(of inputs: [Input]) -> (any Workload)? {
        let name =
            inputs.first?.environment?.workload
            ?? inputs.first.flatMap { input in input.table.rows.first.flatMap { input.table.value("workload", in: $0) }
            }
        return name.flatMap { workloads[$0] }
    }

    /// The whole page.
    public func render() throws -> String {
        var body =
            "<h1>stacklab report</h1>\n<p class=\"files\">"
            + inputs.map { "<code>\(Self.escape($0.file))</code>" }.joined(separator: ", ") + "</p>\n"
        for scenario in scenarios {
            if let input = scenario.inputs.first, input.isComparison {
                body += try comparisonSection(input)
            } else {
                body += try section(scenario.name, inputs: scenario.inputs)
            }
        }
        return Self.page(title: "stacklab report", body: body)
    }

    /// Each scenario's charts as one standalone SVG figure, named after its first file (`concurrency.svg`).
    public func figures() throws -> [(name: String, svg: String)] {
        try scenarios.map { scenario in
            let first = scenario.inputs[0]
            let stem = URL(fileURLWithPath: first.file).deletingPathExtension().lastPathComponent
            let footer = scenario.inputs.map { ReportFigure.footer(file: $0.file, table: $0.table) }
            if first.isComparison {
                let chart = try comparisonChart(first)
                let drawn = chart.charts(comparisonMetrics(chart, workload: workload(of: [first]))).map {
                    ChartPlan.Drawn(svg: $0.svg, width: ComparisonChart.width, height: $0.height, row: 0)
                }
                let scenarioName = first.table.rows.first.flatMap { first.table.value("scenario", in: $0) } ?? stem
                return (
                    stem,
                    ReportFigure.svg(
                        title:
                            "\(scenarioName): current run against the baseline, per cell (median of the repetitions)",
                        charts: drawn, footer: footer)
                )
            }
            let data = ReportData.sharingDeclarations(scenario.inputs.map { ReportData($0.table) })
            let names = scenario.inputs.enumerated().map { Self.runName($1, index: $0) }
            let workload = workload(of: scenario.inputs)
            let charts = ChartPlan(workload: workload, runs: data).draw(data, names: names)
            let workloadName = workload?.name ?? data.first?.workloads.first ?? ""
            let title =
                "\(scenario.name)\(workloadName.isEmpty || workloadName == scenario.name ? "" : " (\(workloadName))")"
                + (scenario.inputs.count > 1 ? ": \(names.joined(separator: " against "))" : "")
                + " — median of the repetitions, whiskers min–max"
            return (stem, ReportFigure.svg(title: title, charts: charts, footer: footer))
        }
    }

    /// A comparison CSV's chart; a metric whose direction the CSV does not state (an older `compare --out`
    /// without `better`) takes it from its workload's declaration, for the title.
    func comparisonChart(_ input: Input) throws -> ComparisonChart {
        var chart = try ComparisonChart(table: input.table)
        if let workload = workload(of: [input]) {
            for metric in Metric.common + workload.metrics where chart.polarity[metric.name] == nil {
                chart.polarity[metric.name] = metric.polarity
            }
        }
        return chart
    }

    /// The metrics a comparison's chart shows: those asked for, else the workload's headline metrics present,
    /// else the judged ones, else every one.
    func comparisonMetrics(_ chart: ComparisonChart, workload: (any Workload)?) -> [String] {
        let present = chart.metrics
        if !comparedMetrics.isEmpty { return comparedMetrics.filter(present.contains) }
        let headline = (workload?.headlineMetrics.map(\.name) ?? []).filter(present.contains)
        if !headline.isEmpty { return headline }
        let judged = present.filter { (chart.polarity[$0] ?? .neutral) != .neutral }
        return judged.isEmpty ? present : judged
    }

    /// What a reader looks for first comes first: the verdicts, the charts, then each file's environment and
    /// table, then every metric's bars.
    private func section(_ name: String, inputs: [Input]) throws -> String {
        var html = "<section>\n<h2>Scenario <code>\(Self.escape(name))</code></h2>\n"
        let workload = workload(of: inputs)
        if inputs.count > 1 {
            for current in inputs.dropFirst() {
                html += try comparison(baseline: inputs[0], current: current, workload: workload)
            }
        }
        let data = ReportData.sharingDeclarations(inputs.map { ReportData($0.table) })
        let names = inputs.enumerated().map { Self.runName($1, index: $0) }
        let charts = ChartPlan(workload: workload, runs: data).draw(data, names: names)
        html += "<h3>Charts</h3>\n<div class=\"charts\">\n"
        html += charts.map(\.svg).joined()
        html += "</div>\n"
        if charts.contains(where: { $0.svg.hasPrefix("<svg class=\"line-chart\"") }) {
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
            html += withinTable(input)
        }
        let metrics = data.flatMap(\.metrics).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        html += "<details><summary>Every metric, per cell (\(metrics.count) bar charts)</summary>\n"
        html += "<div class=\"charts\">\n"
        for metric in metrics {
            html += ReportChart.bars(value: .metric(metric), runs: data, names: names).svg
        }
        html += "</div>\n</details>\n"
        return html + "</section>\n"
    }

    /// A comparison CSV (`compare --out`): its change chart per metric.
    private func comparisonSection(_ input: Input) throws -> String {
        let chart = try comparisonChart(input)
        var html = "<section>\n<h2>Comparison <code>\(Self.escape(input.file))</code></h2>\n"
        html += "<div class=\"charts\">\n"
        html += chart.charts(comparisonMetrics(chart, workload: workload(of: [input]))).map(\.svg).joined()
        return html + "</div>\n</section>\n"
    }

    static func runName(_ input: Input, index: Int) -> String {
        // A sidecar made after the fact (`declare --create`) knows no commit.
        let commit =
            input.environment.flatMap { $0.gitCommit == "unknown" ? nil : " @ " + String($0.gitCommit.prefix(12)) }
            ?? ""
        return "\(URL(fileURLWithPath: input.file).lastPathComponent)\(commit)"
    }

    static func color(_ index: Int) -> String { palette[index % palette.count] }

    private func environment(_ input: Input) -> String {
        var html = ""
        if let problem = input.table.sidecarProblem {
            html += "<p class=\"note\">\(Self.escape(problem))</p>\n"
        }
        guard let env = input.environment else {
            return html
                + "<p class=\"note\">No <code>.env.json</code> sidecar beside this CSV: environment unknown, and its "
                + "metrics undeclared (no better direction).</p>\n"
        }
        let rows: [(String, String)] =
            [
                ("commit", env.gitCommit),
                ("host", "\(env.host), \(env.cores) cores, \(env.memoryBytes / 1_048_576) MiB"),
                ("system", env.operatingSystem), ("swift", env.swift),
            ] + env.engines.map { ($0.name.lowercased(), $0.version) } + [
                ("workload", env.workload),
                ("repetitions", "\(env.repetitions) (warm-up \(env.warmup))\(env.quick ? ", --quick" : "")"),
                ("shard", env.shard ?? "all cells"), ("started", ISO8601DateFormatter().string(from: env.started)),
            ]
        html +=
            "<table class=\"env\">"
            + rows.map { "<tr><th>\(Self.escape($0))</th><td>\(Self.escape($1))</td></tr>" }.joined()
            + "</table>\n"
        let undeclared = input.table.undeclaredMetrics
        if !undeclared.isEmpty {
            html += "<p class=\"note\">Undeclared in the sidecar (no better direction): "
            html += undeclared.map { "<code>\(Self.escape($0))</code>" }.joined(separator: ", ") + ".</p>\n"
        }
        return html
    }

    /// One row per cell: its parameters in columns of their own (a label of them all made the first column
    /// the widest of the page), the run counts, then each metric's median. A cell where a declared bad flag was
    /// raised (a launch the watchdog killed) is marked.
    private func summaryTable(_ data: ReportData) -> String {
        let parameters = data.parameterColumns.filter { column in
            data.cells.contains { !($0.parameters[column] ?? "").isEmpty }
        }
        let flags = data.badFlags
        var html = "<div class=\"scroll\"><table class=\"summary\"><thead><tr>"
        html += (parameters.isEmpty ? ["cell"] : parameters).map { "<th class=\"param\">\(Self.escape($0))</th>" }
            .joined()
        html += "<th>runs</th><th>errors</th>"
        html += data.metrics.map { "<th>\(Self.escape($0))</th>" }.joined() + "</tr></thead><tbody>\n"
        for cell in data.cells {
            let raised = flags.map { ($0, cell.count(flag: $0)) }.filter { $0.1 > 0 }
            html += "<tr\(raised.isEmpty ? "" : " class=\"killed\"")>"
            let values = parameters.isEmpty ? [cell.label] : parameters.map { cell.parameters[$0] ?? "" }
            for (index, value) in values.enumerated() {
                html += "<td class=\"param\">\(Self.escape(value))"
                if index == 0 {
                    for (flag, count) in raised {
                        html += " <span class=\"badge\">\(Self.escape(flag)) in \(count) of \(cell.runs)</span>"
                    }
                }
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

    /// When the run names a reference (its sidecar's `reference`), each other cell's headline metrics against its
    /// twin's: ratio, 95% interval and verdict, as the run's summary gives them.
    private func withinTable(_ input: Input) -> String {
        guard let reference = input.environment?.reference.flatMap(Scenario.Reference.init) else { return "" }
        let headline = (input.environment?.headlineMetrics ?? []).filter(input.table.columns.contains)
        guard
            let within = try? WithinRunComparison(
                input.table, reference: reference, metrics: headline, threshold: threshold, confidence: confidence)
        else { return "" }
        let rows = within.rows()
        guard !rows.isEmpty else { return "" }
        let labels = CellLabels(rows, columns: within.cellColumns)
        var html = "<p class=\"note\">Against \(Self.escape(reference.description)): each cell over its twin, the "
        html += "\(RatioComparison.percent(confidence)) interval and the verdict (threshold "
        html += "\(String(format: "%g", threshold * 100))%).</p>\n"
        html += "<div class=\"scroll\"><table class=\"verdicts\"><thead><tr>"
        html += labels.varying.map { "<th class=\"param\">\(Self.escape($0))</th>" }.joined()
        html += "<th class=\"param\">metric</th><th>ratio</th><th>\(RatioComparison.percent(confidence)) CI</th>"
        html += "<th>verdict</th></tr></thead><tbody>\n"
        for row in rows {
            html += "<tr class=\"\(row.verdict.rawValue)\">"
            html += labels.varying.map { "<td class=\"param\">\(Self.escape(row.cell[$0] ?? ""))</td>" }.joined()
            html += "<td class=\"param\">\(Self.escape(row.metric))</td>"
            html += "<td>\(row.comparison.ratio.map { ComparisonReport.ratio($0) + "×" } ?? "–")</td>"
            html += "<td>\(ComparisonReport.interval(row.comparison))</td>"
            html += "<td>\(Self.escape(ComparisonReport.verdict(row.comparison)))</td></tr>\n"
        }
        return html + "</tbody></table></div>\n"
    }

    private func comparison(baseline: Input, current: Input, workload: (any Workload)?) throws -> String {
        let comparison = try ResultComparison(
            baseline: baseline.table, current: current.table, threshold: threshold, confidence: confidence)
        let all = try comparison.rows()
        let rows = all.filter { $0.verdict != .same }
        let labels = CellLabels(all, columns: comparison.cellColumns)
        var html = "<h3>Comparison: \(Self.escape(URL(fileURLWithPath: current.file).lastPathComponent)) against "
        html += "\(Self.escape(URL(fileURLWithPath: baseline.file).lastPathComponent))</h3>\n"
        html += "<p class=\"note\">"
        if !labels.caption.isEmpty {
            html += "\(Self.escape(labels.caption.prefix(1).uppercased() + labels.caption.dropFirst())). "
        }
        let method = ComparisonReport.method(threshold: threshold, confidence: confidence, paired: false)
        html += "\(Self.escape(method.prefix(1).uppercased() + method.dropFirst())); metrics the same within the "
        html += "threshold not listed.</p>\n"
        for warning in comparison.warnings {
            html += "<p class=\"note\">\(Self.escape(warning)).</p>\n"
        }
        let chart = ComparisonChart(all, cellColumns: comparison.cellColumns, threshold: threshold)
        html += "<div class=\"charts\">\n"
        html += chart.charts(comparisonMetrics(chart, workload: workload)).map(\.svg).joined()
        html += "</div>\n"
        guard !rows.isEmpty else { return html + "<p>Every metric is the same within the threshold.</p>\n" }
        html += "<div class=\"scroll\"><table class=\"verdicts\"><thead><tr><th>verdict</th>"
        html += labels.varying.map { "<th class=\"param\">\(Self.escape($0))</th>" }.joined()
        html +=
            "<th class=\"param\">metric</th><th>baseline</th><th>current</th><th>ratio</th>"
            + "<th>\(RatioComparison.percent(confidence)) CI</th></tr></thead><tbody>\n"
        for verdict in ComparisonMarkdown.verdictOrder.dropLast() {
            for row in rows where row.verdict == verdict {
                html +=
                    "<tr class=\"\(verdict.rawValue)\"><td>\(Self.escape(ComparisonReport.verdict(row.comparison)))</td>"
                html += labels.varying.map { "<td class=\"param\">\(Self.escape(row.cell[$0] ?? ""))</td>" }.joined()
                html +=
                    "<td class=\"param\">\(Self.escape(row.metric))</td><td>\(row.baselineMedian.map(Self.number) ?? "–")</td>"
                html += "<td>\(row.currentMedian.map(Self.number) ?? "–")</td>"
                html += "<td>\(row.comparison.ratio.map { ComparisonReport.ratio($0) + "×" } ?? "–")</td>"
                html += "<td>\(ComparisonReport.interval(row.comparison))</td></tr>\n"
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
        tr.slower td { background: #fde8e8; font-weight: bold; }
        tr.faster td { background: #e8f6ea; }
        tr.unresolved td { color: #777; }
        .note { color: #666; font-size: 90%; }
        .swatch { display: inline-block; width: 0.8em; height: 0.8em; margin-right: 0.4em; }
        .charts { display: flex; flex-wrap: wrap; gap: 1em 1.5em; align-items: flex-start; }
        .charts svg { display: block; max-width: 100%; height: auto; }
        details { margin: 1em 0; }
        summary { cursor: pointer; color: #444; }
        svg text { font: 11px system-ui, sans-serif; fill: #333; }
        svg text.title { font-weight: bold; }
        svg text.note { fill: #555; }
        svg .bar:hover, svg .phase:hover, svg .change:hover { opacity: 0.75; }
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
          var bars = document.querySelectorAll("svg .bar, svg .phase, svg .change").length;
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
