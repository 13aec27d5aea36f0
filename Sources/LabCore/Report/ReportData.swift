import Foundation

/// A result table boiled down for a report: per matrix cell, each metric's values over the runs without an
/// error, how many runs failed and how many launches the watchdog killed.
struct ReportData {
    /// One matrix cell's runs.
    struct Cell {
        /// `store=sqlite strategy=…`: the identifying columns that have a value, scenario and workload left out.
        let label: String
        var runs = 0
        var errors = 0
        var killed = 0
        /// Metric → the values of the runs without an error.
        var values: [String: [Double]] = [:]
    }

    let cells: [Cell]
    /// The metric columns that have a value in some run, in file order.
    let metrics: [String]
    /// The import phases (`ImportPhases.Phase`) among `metrics`, in pipeline order.
    var phaseMetrics: [String] {
        ImportPhases.Phase.allCases.map(\.metric.rawValue).filter(metrics.contains)
    }

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
                let label = zip(cellColumns, key).filter { !$1.isEmpty && !["scenario", "workload"].contains($0) }
                byKey[key] = Cell(label: label.map { "\($0)=\($1)" }.joined(separator: " "))
            }
            byKey[key]!.runs += 1
            if let error = table.value("error", in: row), !error.isEmpty {
                byKey[key]!.errors += 1
                continue
            }
            if table.value("killed_by_watchdog", in: row)?.lowercased() == "true" { byKey[key]!.killed += 1 }
            for (name, index) in zip(metricColumns, metricIndexes) {
                let text = row[index].lowercased()
                guard let value = text == "true" ? 1 : text == "false" ? 0 : Double(text) else { continue }
                byKey[key]!.values[name, default: []].append(value)
            }
        }
        let cells = order.map { byKey[$0]! }
        self.cells = cells
        metrics = metricColumns.filter { name in cells.contains { $0.values[name] != nil } }
    }
}
