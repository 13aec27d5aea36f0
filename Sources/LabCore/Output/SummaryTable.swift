import Foundation

/// The table printed at the end of a run: one row per matrix cell, the median of its repetitions for the
/// workload's headline metrics (`Workload.headlineMetrics`), or for every metric column when asked (`wide`).
///
/// The headline table fits in `maximumWidth` columns: headline metrics that would push it wider are left out,
/// and a last line names them.
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
        return title + aligned(columns(shown), names: axes.count) + note
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
