import Foundation

/// The table printed at the end of a run: one row per matrix cell, the median of its repetitions for the
/// workload's headline metrics (`Workload.headlineMetrics`), or for every metric column when asked (`wide`).
///
/// The headline table fits in `maximumWidth` columns: headline metrics that would push it wider are left out,
/// and a last line names them. When the scenario names a reference (`Scenario.reference`), a second table gives
/// each other cell's headline metrics as a ratio to its reference twin's with the 95% interval and the verdict
/// (`WithinRunComparison`), as many metrics as fit.
public enum SummaryTable {
    /// The widest a headline table gets, in characters.
    public static let maximumWidth = 120

    /// The table for one scenario's results; `wide` shows every metric column, however wide it gets.
    public static func text(_ results: [RunResult], scenario: Scenario, wide: Bool = false) -> String {
        // Store and strategy lead, for the workloads that have them (a launch or an engine has no concurrency
        // strategy).
        let named = ["store", "strategy"].filter { name in scenario.workload.parameters.contains { $0.name == name } }
        let axes = named + scenario.axisNames.filter { !named.contains($0) }
        var cells: [Int: [RunResult]] = [:]
        var order: [Int] = []
        for result in results {
            if cells[result.cell.index] == nil { order.append(result.cell.index) }
            cells[result.cell.index, default: []].append(result)
        }
        let groups = order.map { cells[$0] ?? [] }
        func columns(_ metrics: [Metric]) -> [[String]] {
            let header =
                axes + ["runs"] + metrics.map { ResultCSV.columnName(of: $0, in: scenario) } + ["errors"]
            let rows = groups.map { runs -> [String] in
                let parameters = runs[0].cell.parameters
                let succeeded = runs.filter { $0.error == nil }
                return axes.map { parameters[$0]?.description ?? "" } + [String(runs.count)]
                    + metrics.map { metric in
                        succeeded.compactMap { $0.metrics[metric] }.median.map(metric.format) ?? ""
                    } + [String(runs.count - succeeded.count)]
            }
            return [header] + rows
        }
        let title = "\(scenario.name) (\(scenario.workload.name)): medians of the repetitions\n"
        if wide { return title + aligned(columns(scenario.workload.columns(for: scenario)), names: axes.count) }
        var shown: [Metric] = []
        var left: [Metric] = []
        for metric in scenario.workload.headlineMetrics {
            if left.isEmpty, width(columns(shown + [metric])) <= maximumWidth {
                shown.append(metric)
            } else {
                left.append(metric)
            }
        }
        let note =
            left.isEmpty
            ? "" : "\n(\(left.map(\.name).joined(separator: ", ")) left out to fit; --wide shows every metric)"
        return title + aligned(columns(shown), names: axes.count) + note + against(results, scenario: scenario)
    }

    /// The table of ratios to the reference twins, headed by what they are; empty without a reference or twins.
    static func against(_ results: [RunResult], scenario: Scenario, threshold: Double = 0.10) -> String {
        guard let reference = scenario.reference else { return "" }
        let table = ResultTable(results: results, scenario: scenario)
        let headline = scenario.workload.headlineMetrics.map { ResultCSV.columnName(of: $0, in: scenario) }
        guard
            let within = try? WithinRunComparison(
                table, reference: reference, metrics: headline.filter(table.columns.contains), threshold: threshold)
        else { return "" }
        let rows = within.rows()
        guard !rows.isEmpty else { return "" }
        let axes = scenario.axisNames.filter { within.cellColumns.contains($0) }
        var cells: [[String: String]] = []
        for row in rows where !cells.contains(row.cell) { cells.append(row.cell) }
        func columns(_ metrics: [String]) -> [[String]] {
            [axes + metrics]
                + cells.map { cell in
                    axes.map { cell[$0] ?? "" }
                        + metrics.map { metric in
                            rows.first { $0.cell == cell && $0.metric == metric }.map { ratio($0.comparison) } ?? ""
                        }
                }
        }
        var shown: [String] = []
        for metric in within.metrics where rows.contains(where: { $0.metric == metric }) {
            guard width(columns(shown + [metric])) <= maximumWidth else { break }
            shown.append(metric)
        }
        let title =
            "\n\nagainst \(reference): each cell over its twin, the 95% interval and the verdict "
            + "(threshold \(String(format: "%g", threshold * 100))%)\n"
        let needs =
            rows.contains { $0.comparison.repetitionsNeeded != nil }
            ? "\n(~N: the runs a side that would likely resolve an unresolved verdict)" : ""
        return title + aligned(columns(shown), names: axes.count) + needs
    }

    /// `0.31 [0.22–0.46] faster`, `1.0 [0.98–1.0] same`, `0.88 [0.62–1.4] unresolved ~6`: two digits, to fit.
    static func ratio(_ comparison: RatioComparison) -> String {
        guard let ratio = comparison.ratio else { return "" }
        let interval = comparison.interval.map { _ in " [\(ComparisonReport.interval(comparison, digits: 2))]" } ?? ""
        let needed = comparison.repetitionsNeeded.map { " ~\($0)" } ?? ""
        return ComparisonReport.ratio(ratio, digits: 2) + interval + " " + comparison.verdict.rawValue + needed
    }

    /// How wide the aligned table of `rows` is.
    static func width(_ rows: [[String]]) -> Int {
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return widths.reduce(0, +) + 2 * max(0, widths.count - 1)
    }

    /// Left-aligns the name columns and right-aligns the numbers, with a rule under the header.
    static func aligned(_ rows: [[String]], names: Int) -> String {
        TextTable.render(header: rows[0], rows: Array(rows.dropFirst()), leftAligned: Set(0..<names))
    }
}
