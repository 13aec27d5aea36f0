import Foundation

/// The table printed at the end of a run: one row per matrix cell, the median of its repetitions for the
/// metrics that matter for the workload.
public enum SummaryTable {
    /// The metrics shown for a workload.
    public static func metrics(for workload: WorkloadKind) -> [Metric] {
        switch workload {
        case .import, .readWriteMix:
            return [.objectsPerSecond, .fetchP50Milliseconds, .fetchP99Milliseconds, .mainMaxStallMilliseconds,
                .mainHitchMillisecondsPerSecond, .mergeTotalMilliseconds, .cpuMilliseconds, .peakMemoryMegabytes]
        case .mergeCost:
            return [.mergeTotalMilliseconds, .mergeMaxMilliseconds, .mainMaxStallMilliseconds,
                .mainHitchMillisecondsPerSecond, .fetchP99Milliseconds, .cpuMilliseconds]
        case .saveChain:
            return [.wallMilliseconds, .objectsPerSecond, .mergeTotalMilliseconds, .mainMaxStallMilliseconds,
                .fetchP99Milliseconds]
        }
    }

    /// The table for one scenario's results.
    public static func text(_ results: [RunResult], scenario: Scenario) -> String {
        let metrics = metrics(for: scenario.workload)
        let axes = ["store", "strategy"] + scenario.matrix.map(\.name).filter { $0 != "store" && $0 != "strategy" }
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
                    median(succeeded.compactMap { $0.metrics[metric] }).map(metric.format) ?? ""
                } + [String(runs.count - succeeded.count)]
        }
        return "\(scenario.name) (\(scenario.workload.rawValue)): medians of the repetitions\n" + aligned([header] + rows, names: axes.count)
    }

    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// Left-aligns the name columns and right-aligns the numbers, with a rule under the header.
    static func aligned(_ rows: [[String]], names: Int) -> String {
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        let lines = rows.map { row in
            row.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return column < names ? cell + padding : padding + cell
            }.joined(separator: "  ")
        }
        let rule = String(repeating: "-", count: lines[0].count)
        return ([lines[0], rule] + lines.dropFirst()).joined(separator: "\n")
    }
}
