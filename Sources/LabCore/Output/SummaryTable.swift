import Foundation

/// The table printed at the end of a run: one row per matrix cell, the median of its repetitions for the
/// metrics the workload names (`Workload.summaryMetrics`).
public enum SummaryTable {
    /// The table for one scenario's results.
    public static func text(_ results: [RunResult], scenario: Scenario) -> String {
        let metrics = scenario.workload.summaryMetrics
        // Store and strategy lead, for the workloads that have them (a launch or an engine has no stack design).
        let named = ["store", "strategy"].filter { name in scenario.workload.parameters.contains { $0.name == name } }
        let axes = named + scenario.matrix.map(\.name).filter { !named.contains($0) }
        let header = axes + ["runs"] + metrics.map(\.rawValue) + ["errors"]
        var cells: [Int: [RunResult]] = [:]
        var order: [Int] = []
        for result in results {
            if cells[result.cell.index] == nil { order.append(result.cell.index) }
            cells[result.cell.index, default: []].append(result)
        }
        let rows = order.map { index -> [String] in
            let runs = cells[index] ?? []
            let parameters = runs[0].cell.parameters
            let succeeded = runs.filter { $0.error == nil }
            return axes.map { parameters[$0]?.description ?? "" } + [String(runs.count)]
                + metrics.map { metric in
                    succeeded.compactMap { $0.metrics[metric] }.median.map(metric.format) ?? ""
                } + [String(runs.count - succeeded.count)]
        }
        return "\(scenario.name) (\(scenario.workload.name)): medians of the repetitions\n"
            + aligned([header] + rows, names: axes.count)
    }

    /// Left-aligns the name columns and right-aligns the numbers, with a rule under the header.
    static func aligned(_ rows: [[String]], names: Int) -> String {
        TextTable.render(header: rows[0], rows: Array(rows.dropFirst()), leftAligned: Set(0..<names))
    }
}
