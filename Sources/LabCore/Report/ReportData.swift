import Foundation

/// A result table boiled down for a report: per matrix cell, each metric's values over the runs without an
/// error, how many runs failed and how many launches the watchdog killed.
struct ReportData {
    /// One matrix cell's runs.
    struct Cell {
        /// `store=sqlite strategy=…`: the identifying columns that have a value, scenario and workload left out.
        let label: String
        /// The identifying columns' values by name, scenario and workload left out (empty ones kept).
        let parameters: [String: String]
        var runs = 0
        var errors = 0
        var killed = 0
        /// Metric → the values of the runs without an error.
        var values: [String: [Double]] = [:]
    }

    let cells: [Cell]
    /// The identifying columns of a cell, scenario and workload left out, in file order.
    let parameterColumns: [String]
    /// The distinct values of the `workload` column.
    let workloads: [String]
    /// `cell`'s varying parameters as `sqlite main-only 1000`: what tells it from the other cells, for chart labels.
    func shortLabel(_ cell: Cell) -> String {
        let varying = parameterColumns.filter { column in Set(cells.map { $0.parameters[column] ?? "" }).count > 1 }
        let parts = varying.compactMap { cell.parameters[$0].flatMap { $0.isEmpty ? nil : $0 } }
        return parts.isEmpty ? cell.label : parts.joined(separator: " · ")
    }

    /// The metric columns that have a value in some run, in file order.
    let metrics: [String]
    /// The import phases (`ImportPhases.Phase`) among `metrics`, in pipeline order.
    var phaseMetrics: [String] {
        ImportPhases.Phase.allCases.map(\.metric.rawValue).filter(metrics.contains)
    }

    /// The derived value `values` holds beside the metrics for a merge-cost run: merge_total_ms / merges.
    static let perMerge = "ms_per_merge"

    init(_ table: ResultTable) {
        let metricColumns = table.metricColumns
        let cellIndexes = table.cellColumnIndexes
        let cellColumns = cellIndexes.map { table.columns[$0] }
        // The last column of each name: a parameter before `timestamp` may share its name with a metric (objects).
        let metricIndexes = metricColumns.map { name in table.columns.lastIndex(of: name)! }
        var order: [[String]] = []
        var byKey: [[String]: Cell] = [:]
        for row in table.rows {
            let key = cellIndexes.map { row[$0] }
            if byKey[key] == nil {
                order.append(key)
                let named = zip(cellColumns, key).filter { !["scenario", "workload"].contains($0.0) }
                byKey[key] = Cell(
                    label: named.filter { !$1.isEmpty }.map { "\($0)=\($1)" }.joined(separator: " "),
                    parameters: Dictionary(named, uniquingKeysWith: { first, _ in first }))
            }
            byKey[key]!.runs += 1
            if let error = table.value("error", in: row), !error.isEmpty {
                byKey[key]!.errors += 1
                continue
            }
            if table.value("killed_by_watchdog", in: row)?.lowercased() == "true" { byKey[key]!.killed += 1 }
            var run: [String: Double] = [:]
            for (name, index) in zip(metricColumns, metricIndexes) {
                let text = row[index].lowercased()
                guard let value = text == "true" ? 1 : text == "false" ? 0 : Double(text) else { continue }
                byKey[key]!.values[name, default: []].append(value)
                run[name] = value
            }
            // What merge-cost's chart draws: the time of one merge, run by run (plot.py divides the same way).
            if let total = run["merge_total_ms"], let merges = run["merges"], merges > 0 {
                byKey[key]!.values[Self.perMerge, default: []].append(total / merges)
            }
        }
        let cells = order.map { byKey[$0]! }
        self.cells = cells
        parameterColumns = cellColumns.filter { !["scenario", "workload"].contains($0) }
        workloads = Array(Set(table.rows.compactMap { table.value("workload", in: $0) })).sorted()
        metrics = metricColumns.filter { name in cells.contains { $0.values[name] != nil } }
    }
}
