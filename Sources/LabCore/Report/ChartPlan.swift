import Foundation

/// Which charts the report draws for one scenario, chosen as `scripts/plot.py` chooses its kind: by the
/// workload (the `.env.json` sidecar's, else the CSV's `workload` column), then by the columns.
///
/// - startup: launch time against store size (log–log), one line per loading mode, one chart per store, the
///   watchdog deadline drawn as a line and killed launches marked.
/// - merge-cost: time per merge against registered objects and against changes (log–log), one line per
///   strategy and value of the other axis.
/// - concurrency (store and strategy columns, a stall or throughput metric): with one numeric swept parameter
///   of three values or more (batch_size), the stall (log) and the throughput against it per store, one line
///   per strategy; otherwise bars.
/// - anything else: a numeric parameter swept over three values or more gives lines of the headline metrics
///   against it; otherwise bars.
///
/// Several files of one scenario are drawn together: the same colour per strategy or mode, later files dashed.
enum ChartPlan: Equatable {
    case startup(size: String)
    case mergeCost
    case concurrencyLines(axis: String)
    case lines(axis: String)
    /// Bars of the longest stall and the throughput, as plot.py's concurrency chart without a sweep.
    case concurrencyBars
    case bars

    /// The metrics a chart of something else shows first, as plot.py's `HEADLINE_METRICS`.
    static let headline = [
        "main_max_stall_ms", "main_hitch_ms_per_s", "objects_per_s", "wall_ms", "fetch_p99_ms", "merge_total_ms",
        "time_to_first_screen_ms", "time_to_first_frame_ms", "peak_rss_mb",
    ]
    static let strategyColors = [
        "main-only": "#7f7f7f", "shared-coordinator": "#1f77b4", "separate-stacks": "#ff7f0e",
        "nested-contexts": "#2ca02c", "sync": "#d62728", "async": "#1f77b4",
    ]
    static let extraColors = ["#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#4e79a7"]
    static let dashes = ["5 3", "2 2", "8 3 2 3"]

    /// The plan for `runs` of one scenario; `workload` is the sidecar's when there is one.
    static func choose(workload: String?, runs: [ReportData]) -> ChartPlan {
        let workloads = workload.map { [$0] } ?? Array(Set(runs.flatMap(\.workloads))).sorted()
        let columns = runs.flatMap(\.parameterColumns).reduce(into: [String]()) {
            if !$0.contains($1) { $0.append($1) }
        }
        let metrics = Set(runs.flatMap(\.metrics))
        let numeric = { (column: String) in isNumeric(column, runs) }
        if workloads == ["startup"] || (workloads.isEmpty && metrics.contains("time_to_first_screen_ms")) {
            if let size = ["objects", "store_objects", "pods", "store_size"].first(where: {
                columns.contains($0) && numeric($0)
            }) {
                return .startup(size: size)
            }
        }
        let mergeColumns = ["registered", "changes"].allSatisfy { columns.contains($0) && numeric($0) }
        if (workloads == ["merge-cost"] || workloads.isEmpty) && mergeColumns && metrics.contains("merge_total_ms") {
            return .mergeCost
        }
        let swept = columns.filter { distinct($0, runs).count >= 3 && numeric($0) }
        if columns.contains("store"), columns.contains("strategy"),
            metrics.contains("main_max_stall_ms") || metrics.contains("objects_per_s")
        {
            let extra = columns.filter { !["store", "strategy"].contains($0) && distinct($0, runs).count > 1 }
            if extra.count == 1, swept.contains(extra[0]) { return .concurrencyLines(axis: extra[0]) }
            return .concurrencyBars
        }
        return swept.first.map { .lines(axis: $0) } ?? .bars
    }

    /// The line charts of the plan (none for `.bars`).
    func charts(_ runs: [ReportData], names: [String]) -> [LineChart] {
        switch self {
        case .startup(let size): return Self.startup(runs, names: names, size: size)
        case .mergeCost: return Self.mergeCost(runs, names: names)
        case .concurrencyLines(let axis): return Self.concurrency(runs, names: names, axis: axis)
        case .lines(let axis): return Self.generic(runs, names: names, axis: axis)
        case .concurrencyBars, .bars: return []
        }
    }

    /// The metrics the bar charts of a plan without lines show: a concurrency run's stall and throughput, else
    /// the headline ones present, else every one.
    func barMetrics(_ runs: [ReportData]) -> [String] {
        let present = runs.flatMap(\.metrics)
        if self == .concurrencyBars {
            return ["main_max_stall_ms", "objects_per_s"].filter(present.contains)
        }
        let chosen = Self.headline.filter(present.contains)
        return chosen.isEmpty ? present.reduce(into: []) { if !$0.contains($1) { $0.append($1) } } : chosen
    }

    // MARK: The kinds

    private static func startup(_ runs: [ReportData], names: [String], size: String) -> [LineChart] {
        let metrics = ["time_to_first_frame_ms", "time_to_first_screen_ms", "main_max_stall_ms"].filter { metric in
            runs.contains { $0.metrics.contains(metric) }
        }
        let series = ["mode"].filter { column in runs.contains { $0.parameterColumns.contains(column) } }
        let panels = ["store", "migration", "strategy"].filter { column in
            distinct(column, runs).count > 1 && !determined(column, by: series, runs)
        }
        let deadlines = Set(runs.flatMap { $0.cells.compactMap { $0.values["deadline_ms"]?.median } }).sorted()
        var charts: [LineChart] = []
        for panel in combinations(panels, runs) {
            for metric in metrics {
                let timed = metric != "main_max_stall_ms"
                var chart = lines(
                    runs, names: names, x: size, seriesColumns: series, metric: metric,
                    where: { cell in panel.allSatisfy { cell.parameters[$0.0] == $0.1 } },
                    killedAt: timed ? deadlines.last : nil)
                chart.title = label(panel) + (label(panel).isEmpty ? "" : ": ") + metric
                chart.xLabel = "objects in the store"
                chart.yLabel = metric + " — lower is better"
                chart.xLog = true
                chart.yLog = true
                if timed {
                    chart.rules = deadlines.map { .init(y: $0, label: "watchdog deadline \(ChartScale.short($0)) ms") }
                } else {
                    chart.killed = []
                }
                charts.append(chart)
            }
        }
        return charts
    }

    private static func mergeCost(_ runs: [ReportData], names: [String]) -> [LineChart] {
        [
            ("registered", "changes", "objects registered in the main context"),
            ("changes", "registered", "changes per merged save"),
        ]
        .map { axis, other, label in
            var chart = lines(
                runs, names: names, x: axis, seriesColumns: ["strategy", other], metric: ReportData.perMerge,
                where: { _ in true })
            chart.title = "time per merge against \(label)"
            chart.xLabel = label
            chart.yLabel = "main-thread time per merge (ms) — lower is better"
            chart.xLog = true
            chart.yLog = true
            return chart
        }
    }

    private static func concurrency(_ runs: [ReportData], names: [String], axis: String) -> [LineChart] {
        var charts: [LineChart] = []
        for store in distinct("store", runs) {
            for (metric, log, what) in [
                ("main_max_stall_ms", true, "longest main-thread stall (ms) — lower is better"),
                ("objects_per_s", false, "throughput (objects/s) — higher is better"),
            ] where runs.contains(where: { $0.metrics.contains(metric) }) {
                var chart = lines(
                    runs, names: names, x: axis, seriesColumns: ["strategy"], metric: metric,
                    where: { $0.parameters["store"] == store })
                chart.title = "\(store): \(metric)"
                chart.xLabel = axis
                chart.yLabel = what
                chart.xLog = true
                chart.yLog = log
                charts.append(chart)
            }
        }
        return charts
    }

    private static func generic(_ runs: [ReportData], names: [String], axis: String) -> [LineChart] {
        let others = runs.flatMap(\.parameterColumns).reduce(into: [String]()) {
            if $1 != axis, !$0.contains($1), distinct($1, runs).count > 1 { $0.append($1) }
        }
        let xs = runs.flatMap { $0.cells.compactMap { $0.parameters[axis].flatMap(Double.init) } }
        return ChartPlan.bars.barMetrics(runs).map { metric in
            var chart = lines(runs, names: names, x: axis, seriesColumns: others, metric: metric, where: { _ in true })
            let ys = chart.series.flatMap { $0.points.map(\.median) }
            let polarity = ResultComparison.polarity(of: metric)
            chart.title = metric
            chart.xLabel = axis
            chart.yLabel =
                metric
                + (polarity == .lowerIsBetter
                    ? " — lower is better" : polarity == .higherIsBetter ? " — higher is better" : "")
            chart.xLog = wide(xs)
            chart.yLog = wide(ys)
            return chart
        }
    }

    // MARK: Building a chart

    /// One series per run and value of `seriesColumns` among the cells that pass `filter`: the median of
    /// `metric` at each value of `x`, its min and max; killed launches and failed runs as marks.
    private static func lines(
        _ runs: [ReportData], names: [String], x: String, seriesColumns: [String], metric: String,
        where filter: (ReportData.Cell) -> Bool, killedAt deadline: Double? = nil
    ) -> LineChart {
        let colorKeys = distinct(seriesColumns.first ?? "", runs)
        let dashKeys = seriesColumns.count > 1 ? distinct(seriesColumns[1], runs) : [""]
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
                let name = seriesName(key, columns: seriesColumns, run: runs.count > 1 ? names[index] : nil)
                let color = color(for: key.first ?? "", among: colorKeys)
                if cell.killed > 0 {
                    killed.append(
                        .init(
                            x: xValue, y: deadline, color: color,
                            note: "\(name): \(x) \(HTMLReport.number(xValue)) killed by the watchdog in "
                                + "\(cell.killed) of \(cell.runs) runs"))
                }
                if cell.errors > 0 {
                    failed.append(
                        .init(
                            x: xValue, color: color,
                            note:
                                "\(name): \(x) \(HTMLReport.number(xValue)) failed in \(cell.errors) of \(cell.runs) runs"
                        ))
                }
                guard let values = cell.values[metric], let median = values.median, let low = values.min(),
                    let high = values.max()
                else { continue }
                byKey[key]!.append(.init(x: xValue, median: median, low: low, high: high, count: values.count))
            }
            for key in order where !(byKey[key] ?? []).isEmpty {
                let dashIndex = index * dashKeys.count + (dashKeys.firstIndex(of: key.count > 1 ? key[1] : "") ?? 0)
                series.append(
                    .init(
                        name: seriesName(key, columns: seriesColumns, run: runs.count > 1 ? names[index] : nil),
                        color: color(for: key.first ?? "", among: colorKeys),
                        dash: dashIndex == 0 ? nil : dashes[(dashIndex - 1) % dashes.count], points: byKey[key]!))
            }
        }
        var chart = LineChart(title: metric, xLabel: x, yLabel: metric, xLog: false, yLog: false, series: series)
        chart.killed = killed
        chart.failed = failed
        return chart
    }

    private static func seriesName(_ key: [String], columns: [String], run: String?) -> String {
        let parts = zip(columns, key).enumerated().map { index, pair in
            index == 0 ? (pair.1.isEmpty ? "all" : pair.1) : "\(pair.0) \(pair.1)"
        }
        let name = parts.isEmpty ? "median" : parts.joined(separator: " · ")
        return run.map { "\(name) — \($0)" } ?? name
    }

    private static func color(for key: String, among keys: [String]) -> String {
        if let known = strategyColors[key] { return known }
        let extras = keys.filter { strategyColors[$0] == nil }
        return extraColors[(extras.firstIndex(of: key) ?? 0) % extraColors.count]
    }

    // MARK: Columns

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

    /// Whether `column`'s value follows from the `by` columns' in every cell (the fixture's strategy
    /// `sync-launch` always has mode `sync`): a panel per such value would hold one line each.
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
    private static func combinations(_ columns: [String], _ runs: [ReportData]) -> [[(String, String)]] {
        var result: [[(String, String)]] = []
        var seen: Set<[String]> = []
        for cell in runs.flatMap(\.cells) {
            let values = columns.map { cell.parameters[$0] ?? "" }
            if seen.insert(values).inserted { result.append(Array(zip(columns, values))) }
        }
        return result
    }

    private static func label(_ panel: [(String, String)]) -> String {
        panel.map { $0.0 == "store" ? $0.1 : "\($0.0) \($0.1)" }.joined(separator: " · ")
    }

    /// Whether values span two decades or more, where plot.py's sweeps use a log axis.
    private static func wide(_ values: [Double]) -> Bool {
        guard let low = values.min(), let high = values.max(), low > 0 else { return false }
        return high / low >= 100
    }
}
