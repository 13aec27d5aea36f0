import Foundation

/// Which charts the report draws for one scenario, and drawing them: the workload's declared charts
/// (`Workload.charts`), or, for a workload that declares none (or one the lab does not know), lines of the
/// headline metrics against a numeric parameter swept over three values or more, else bars.
///
/// Several files of one scenario are drawn together: the same colour per series value (a concurrency strategy's
/// declared colour), later files dashed. The plan knows no workload, metric or strategy by name: what it draws
/// comes from the declarations — the charts from the workload, the metrics' polarity and groups and the
/// strategies' colours from the files' sidecars.
struct ChartPlan {
    /// One drawn chart: its SVG, its size, and the row of a figure it starts or continues (a row per spec).
    struct Drawn {
        var svg: String
        var width: Double
        var height: Double
        var row: Int
    }

    /// The specs drawn, in order.
    let specs: [ChartSpec]
    /// Series value → colour: the workload's and the files' concurrency strategies, then each spec's own.
    let colors: [String: String]

    static let extraColors = ["#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#4e79a7"]
    static let dashes = ["5 3", "2 2", "8 3 2 3"]

    /// The plan for `runs` of one scenario of `workload` (nil: a workload the lab does not know).
    init(workload: (any Workload)?, runs: [ReportData]) {
        if let declared = workload?.charts, !declared.isEmpty {
            specs = declared
        } else {
            specs = Self.headline(workload: workload, runs: runs).map {
                var spec = ChartSpec.lines(.metric($0), against: .swept)
                spec.autoSeries = true
                return spec
            }
        }
        var colors: [String: String] = [:]
        for strategy in (workload?.strategies ?? []) + runs.flatMap(\.strategies) {
            if let color = strategy.color, colors[strategy.name] == nil { colors[strategy.name] = color }
        }
        for spec in specs { colors.merge(spec.colors) { known, _ in known } }
        self.colors = colors
    }

    /// What a chart of an undeclared workload shows: its headline metrics with a value, else its declared
    /// non-neutral ones, else every metric.
    static func headline(workload: (any Workload)?, runs: [ReportData]) -> [String] {
        let present = runs.flatMap(\.metrics).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        let named = (workload?.headlineMetrics.map(\.name) ?? []) + runs.flatMap(\.headline)
        let headline = named.reduce(into: [String]()) { if present.contains($1), !$0.contains($1) { $0.append($1) } }
        if !headline.isEmpty { return headline }
        let judged = present.filter { metric in
            runs.contains { ($0.declarations[metric]?.polarity ?? .neutral) != .neutral }
        }
        return judged.isEmpty ? present : judged
    }

    /// Every chart of the plan that has something to draw.
    func draw(_ runs: [ReportData], names: [String]) -> [Drawn] {
        var drawn: [Drawn] = []
        var barsDrawn: Set<String> = []
        for (row, spec) in specs.enumerated() {
            switch spec.kind {
            case .lines:
                guard spec.value.columns.allSatisfy({ column in runs.contains { $0.metrics.contains(column) } })
                else { continue }
                if let charts = lineCharts(spec, runs: runs, names: names) {
                    for chart in charts
                    where chart.series.contains(where: { !$0.points.isEmpty }) || !chart.killed.isEmpty {
                        drawn.append(Drawn(svg: chart.svg(), width: LineChart.width, height: chart.height, row: row))
                    }
                } else if barsDrawn.insert(spec.value.name).inserted {
                    let bars = ReportChart.bars(value: spec.value, runs: runs, names: names)
                    drawn.append(Drawn(svg: bars.svg, width: ReportChart.width, height: bars.height, row: row))
                }
            case .stack:
                for (index, run) in runs.enumerated() {
                    let order = runs.compactMap { $0.declarationOrder.isEmpty ? nil : $0.declarationOrder }.first ?? []
                    let metrics = run.metrics(inGroup: spec.group, order: order)
                    guard !metrics.isEmpty else { continue }
                    let panels = Self.panelColumns(spec.panels, series: [], runs: [run])
                    for panel in Self.combinations(panels, [run]) {
                        let cells = run.cells.filter { cell in panel.allSatisfy { cell.parameters[$0.0] == $0.1 } }
                        var title = Self.label(panel)
                        title += (title.isEmpty ? "" : ": ") + (spec.title ?? spec.group)
                        if runs.count > 1 { title += " — \(names[index])" }
                        let chart = ReportChart.stacked(
                            metrics: metrics, cells: cells, run: run, title: title, omitting: panels)
                        drawn.append(Drawn(svg: chart.svg, width: ReportChart.width, height: chart.height, row: row))
                    }
                }
            }
        }
        return drawn
    }

    // MARK: - Lines

    /// The line charts of `spec`, a chart per panel; nil when its x axis finds no column (draw bars instead).
    private func lineCharts(_ spec: ChartSpec, runs: [ReportData], names: [String]) -> [LineChart]? {
        let columns = runs.flatMap(\.parameterColumns).reduce(into: [String]()) {
            if !$0.contains($1) { $0.append($1) }
        }
        let varying = columns.filter { Self.distinct($0, runs).count > 1 }
        var series = spec.series.filter(columns.contains)
        let x: String
        switch spec.x {
        case .column(let column):
            guard columns.contains(column), Self.isNumeric(column, runs) else { return nil }
            x = column
        case .swept:
            if spec.autoSeries {
                guard let first = varying.first(where: { Self.isSwept($0, runs) }) else { return nil }
                x = first
                series = varying.filter { $0 != first }
            } else {
                let others = varying.filter { !series.contains($0) && !spec.panels.contains($0) }
                guard others.count == 1, Self.isSwept(others[0], runs) else { return nil }
                x = others[0]
            }
        }
        let panels = Self.panelColumns(spec.panels, series: series, runs: runs)
        // A ratio is judged as its first metric: time per merge as merge time.
        let declaration = runs.lazy.compactMap { $0.declarations[spec.value.columns[0]] }.first
        let rules =
            spec.rule.map { rule in
                Set(runs.flatMap { $0.cells.flatMap { $0.values[rule] ?? [] } }).sorted()
            } ?? []
        var charts: [LineChart] = []
        for panel in Self.combinations(panels, runs) {
            var chart = lines(
                runs, names: names, x: x, seriesColumns: series, value: spec.value, killedFlag: spec.killed,
                where: { cell in panel.allSatisfy { cell.parameters[$0.0] == $0.1 } }, killedAt: rules.last)
            let panelLabel = Self.label(panel)
            chart.title = panelLabel + (panelLabel.isEmpty ? "" : ": ") + (spec.title ?? spec.value.name)
            chart.xLabel = spec.xLabel ?? x
            let polarity = declaration?.polarity ?? .neutral
            chart.yLabel =
                (spec.yLabel ?? spec.value.name)
                + (polarity == .lowerIsBetter
                    ? " — lower is better" : polarity == .higherIsBetter ? " — higher is better" : "")
            chart.xLog = spec.xLog
            chart.yLog = spec.yLog
            if spec.rule != nil {
                chart.rules = rules.map { .init(y: $0, label: "\(spec.rule!) \(ChartScale.short($0))") }
            }
            if spec.contrast.count == 2, let first = series.first {
                chart.notes = Self.contrast(
                    spec.contrast, column: first, x: x, value: spec.value, runs: [runs[0]],
                    where: { cell in panel.allSatisfy { cell.parameters[$0.0] == $0.1 } })
            }
            charts.append(chart)
        }
        return charts
    }

    /// One series per run and value of `seriesColumns` among the cells that pass `filter`: the median of
    /// `value` at each value of `x`, its min and max; runs with `killedFlag` true and failed runs as marks.
    private func lines(
        _ runs: [ReportData], names: [String], x: String, seriesColumns: [String], value: ChartSpec.Value,
        killedFlag: String?, where filter: (ReportData.Cell) -> Bool, killedAt deadline: Double?
    ) -> LineChart {
        let colorKeys = Self.distinct(seriesColumns.first ?? "", runs)
        let dashKeys = seriesColumns.count > 1 ? Self.distinct(seriesColumns[1], runs) : [""]
        var series: [LineChart.Series] = []
        var killed: [LineChart.Mark] = []
        var failed: [LineChart.Mark] = []
        for (index, run) in runs.enumerated() {
            var byKey: [[String]: [LineChart.Point]] = [:]
            var order: [[String]] = []
            for cell in run.cells where filter(cell) {
                guard let xValue = cell.parameters[x].flatMap(Double.init) else { continue }
                let key = seriesColumns.map { cell.parameters[$0] ?? "" }
                if byKey[key] == nil {
                    order.append(key)
                    byKey[key] = []
                }
                let name = Self.seriesName(key, columns: seriesColumns, run: runs.count > 1 ? names[index] : nil)
                let color = color(for: key.first ?? "", among: colorKeys)
                if let killedFlag, cell.count(flag: killedFlag) > 0 {
                    killed.append(
                        .init(
                            x: xValue, y: deadline, color: color,
                            note: "\(name): \(x) \(HTMLReport.number(xValue)) \(killedFlag) in "
                                + "\(cell.count(flag: killedFlag)) of \(cell.runs) runs"))
                }
                if cell.errors > 0 {
                    failed.append(
                        .init(
                            x: xValue, color: color,
                            note:
                                "\(name): \(x) \(HTMLReport.number(xValue)) failed in \(cell.errors) of \(cell.runs) runs"
                        ))
                }
                let values = cell.values(of: value)
                guard let median = values.median, let low = values.min(), let high = values.max() else { continue }
                byKey[key]!.append(.init(x: xValue, median: median, low: low, high: high, count: values.count))
            }
            for key in order where !(byKey[key] ?? []).isEmpty {
                let dashIndex = index * dashKeys.count + (dashKeys.firstIndex(of: key.count > 1 ? key[1] : "") ?? 0)
                series.append(
                    .init(
                        name: Self.seriesName(key, columns: seriesColumns, run: runs.count > 1 ? names[index] : nil),
                        color: color(for: key.first ?? "", among: colorKeys),
                        dash: dashIndex == 0 ? nil : Self.dashes[(dashIndex - 1) % Self.dashes.count],
                        points: byKey[key]!))
            }
        }
        var chart = LineChart(
            title: value.name, xLabel: x, yLabel: value.name, xLog: false, yLog: false, series: series)
        chart.killed = killed
        chart.failed = failed
        if let killedFlag { chart.killedLabel = killedFlag }
        return chart
    }

    /// Where the second of `pair` is clearly lower than the first — every run of one below every run of the
    /// other, so the machine's noise cannot explain it — as two lines: from which x on it stays so, and at
    /// which x each is lower or they are level.
    static func contrast(
        _ pair: [String], column: String, x: String, value: ChartSpec.Value, runs: [ReportData],
        where filter: (ReportData.Cell) -> Bool
    ) -> [String] {
        var byX: [Double: [String: [Double]]] = [:]
        for cell in runs.flatMap(\.cells) where filter(cell) {
            guard let xValue = cell.parameters[x].flatMap(Double.init), let name = cell.parameters[column],
                pair.contains(name)
            else { continue }
            byX[xValue, default: [:]][name, default: []] += cell.values(of: value)
        }
        let xs = byX.keys.sorted()
        let verdicts = xs.map { xValue -> String? in
            guard let first = byX[xValue]?[pair[0]], let second = byX[xValue]?[pair[1]], let firstHigh = first.max(),
                let firstLow = first.min(), let secondHigh = second.max(), let secondLow = second.min()
            else { return nil }
            if firstHigh < secondLow { return pair[0] }
            if secondHigh < firstLow { return pair[1] }
            return "level"
        }
        let short = { (name: String) in String(name.split(separator: "-").first ?? Substring(name)) }
        guard !xs.isEmpty, !verdicts.contains(where: { $0 == nil }) else { return [] }
        let lastFirst = verdicts.lastIndex(of: pair[0]) ?? -1
        let after = verdicts.indices.filter { verdicts[$0] == pair[1] && $0 > lastFirst }
        let crossing: String
        if let start = after.first {
            crossing =
                start == 0
                ? "\(short(pair[1])) clearly < \(short(pair[0])) already at the smallest \(x)"
                : "\(short(pair[1])) clearly < \(short(pair[0])) from \(x) \(ChartScale.short(xs[start]))"
        } else {
            crossing = "no crossing: \(short(pair[1])) never clearly < \(short(pair[0])) from some \(x) on"
        }
        var groups: [(String, [String])] = [(pair[0], []), (pair[1], []), ("level", [])]
        for (xValue, verdict) in zip(xs, verdicts) {
            if let index = groups.firstIndex(where: { $0.0 == verdict }) {
                groups[index].1.append(ChartScale.short(xValue))
            }
        }
        let parts = groups.filter { !$0.1.isEmpty }.map {
            "\($0.0 == "level" ? "level" : short($0.0)) at \($0.1.joined(separator: ", "))"
        }
        return [crossing, "clearly lower: " + parts.joined(separator: " · ")]
    }

    private static func seriesName(_ key: [String], columns: [String], run: String?) -> String {
        let parts = zip(columns, key).enumerated().map { index, pair in
            index == 0 ? (pair.1.isEmpty ? "all" : pair.1) : "\(pair.0) \(pair.1)"
        }
        let name = parts.isEmpty ? "median" : parts.joined(separator: " · ")
        return run.map { "\(name) — \($0)" } ?? name
    }

    private func color(for key: String, among keys: [String]) -> String {
        if let known = colors[key] { return known }
        let extras = keys.filter { colors[$0] == nil }
        return Self.extraColors[(extras.firstIndex(of: key) ?? 0) % Self.extraColors.count]
    }

    // MARK: - Columns

    /// The distinct values of `column` over every cell of `runs`, in first-seen order.
    static func distinct(_ column: String, _ runs: [ReportData]) -> [String] {
        runs.flatMap { $0.cells.compactMap { $0.parameters[column] } }.reduce(into: [String]()) {
            if !$0.contains($1) { $0.append($1) }
        }
    }

    private static func isNumeric(_ column: String, _ runs: [ReportData]) -> Bool {
        let values = distinct(column, runs)
        return !values.isEmpty && values.allSatisfy { Double($0) != nil }
    }

    /// A number swept over three values or more: what a line can be drawn against.
    private static func isSwept(_ column: String, _ runs: [ReportData]) -> Bool {
        distinct(column, runs).count >= 3 && isNumeric(column, runs)
    }

    /// The panel columns that split the charts: those of `panels` that vary and are not given by the series.
    static func panelColumns(_ panels: [String], series: [String], runs: [ReportData]) -> [String] {
        panels.filter { column in distinct(column, runs).count > 1 && !determined(column, by: series, runs) }
    }

    /// Whether `column`'s value follows from the `by` columns' in every cell (a strategy `sync-launch` that
    /// always has mode `sync`): a panel per such value would hold one line each.
    private static func determined(_ column: String, by columns: [String], _ runs: [ReportData]) -> Bool {
        guard !columns.isEmpty else { return false }
        var seen: [[String]: String] = [:]
        for cell in runs.flatMap(\.cells) {
            let key = columns.map { cell.parameters[$0] ?? "" }
            let value = cell.parameters[column] ?? ""
            if let earlier = seen[key], earlier != value { return false }
            seen[key] = value
        }
        return true
    }

    /// Every combination of the `columns`' values that some cell has, in first-seen order.
    static func combinations(_ columns: [String], _ runs: [ReportData]) -> [[(String, String)]] {
        var result: [[(String, String)]] = []
        var seen: Set<[String]> = []
        for cell in runs.flatMap(\.cells) {
            let values = columns.map { cell.parameters[$0] ?? "" }
            if seen.insert(values).inserted { result.append(Array(zip(columns, values))) }
        }
        return result
    }

    /// A panel's name: the store alone, other columns with their name.
    static func label(_ panel: [(String, String)]) -> String {
        panel.map { $0.0 == "store" ? $0.1 : "\($0.0) \($0.1)" }.joined(separator: " · ")
    }
}
