import Foundation

/// A result table boiled down for a report: per matrix cell, each finished run's metric values, how many runs
/// failed, and the metrics' declarations from the file's sidecar.
struct ReportData {
    /// One matrix cell's runs.
    struct Cell {
        /// `store=sqlite strategy=…`: the identifying columns that have a value, scenario and workload left out.
        let label: String
        /// The identifying columns' values by name, scenario and workload left out (empty ones kept).
        let parameters: [String: String]
        var runs = 0
        var errors = 0
        /// The metric values of each run without an error, by column.
        var finished: [[String: Double]] = []
        /// Metric → the values of the runs without an error.
        var values: [String: [Double]] = [:]

        /// The values of `value` over the runs without an error (a ratio where the run has both metrics).
        func values(of value: ChartSpec.Value) -> [Double] {
            switch value {
            case .metric(let metric): return values[metric] ?? []
            case .ratio(let metric, let per, _):
                return finished.compactMap { run in
                    guard let total = run[metric], let count = run[per], count > 0 else { return nil }
                    return total / count
                }
            }
        }

        /// How many runs without an error have the flag `metric` true.
        func count(flag metric: String) -> Int {
            finished.filter { $0[metric] == 1 }.count
        }
    }

    let cells: [Cell]
    /// The identifying columns of a cell, scenario and workload left out, in file order.
    let parameterColumns: [String]
    /// The distinct values of the `workload` column.
    let workloads: [String]
    /// The metric columns that have a value in some run, in file order.
    let metrics: [String]
    /// The metrics' declarations, from the sidecar; empty for a file without them.
    private(set) var declarations: [String: Metric]
    /// The same declarations in the sidecar's order (the CSV's column order).
    private(set) var declarationOrder: [Metric]
    /// The concurrency strategies' declarations, from the sidecar.
    let strategies: [ConcurrencyStrategy]
    /// The headline metrics the sidecar names.
    let headline: [String]

    /// `cell`'s varying parameters as `sqlite main-only 1000`: what tells it from the other cells, for chart labels;
    /// `omitting` leaves out columns a chart's title already names (its panel).
    func shortLabel(_ cell: Cell, omitting: [String] = []) -> String {
        let varying = parameterColumns.filter { column in
            !omitting.contains(column) && Set(cells.map { $0.parameters[column] ?? "" }).count > 1
        }
        let parts = varying.compactMap { cell.parameters[$0].flatMap { $0.isEmpty ? nil : $0 } }
        return parts.isEmpty ? cell.label : parts.joined(separator: " · ")
    }

    /// The flags that mark a run gone wrong without an error (a launch the watchdog killed): declared flags that
    /// are better false.
    var badFlags: [String] {
        metrics.filter { declarations[$0]?.isFlag == true && declarations[$0]?.polarity == .lowerIsBetter }
    }

    /// The declared metrics of `group` that have a value, in declaration order.
    func metrics(inGroup group: String, order: [Metric]) -> [String] {
        order.filter { $0.group == group && metrics.contains($0.name) }.map(\.name)
    }

    /// `runs` of one scenario, each lending the others the declarations they lack, as a comparison takes the
    /// current file's declaration, else the baseline's.
    static func sharingDeclarations(_ runs: [ReportData]) -> [ReportData] {
        runs.map { run in
            var run = run
            for other in runs {
                for metric in other.declarationOrder where run.declarations[metric.name] == nil {
                    run.declarations[metric.name] = metric
                    run.declarationOrder.append(metric)
                }
            }
            return run
        }
    }

    init(_ table: ResultTable) {
        let metricColumns = table.metricColumns
        let cellIndexes = table.cellColumnIndexes
        let cellColumns = cellIndexes.map { table.columns[$0] }
        // The last column of each name: in a file written before the CSV renamed a clashing metric (`objects_measured`),
        // a parameter before `timestamp` may share its name with a metric (`objects`).
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
            var run: [String: Double] = [:]
            for (name, index) in zip(metricColumns, metricIndexes) {
                let text = row[index].lowercased()
                guard let value = text == "true" ? 1 : text == "false" ? 0 : Double(text) else { continue }
                byKey[key]!.values[name, default: []].append(value)
                run[name] = value
            }
            byKey[key]!.finished.append(run)
        }
        let cells = order.map { byKey[$0]! }
        self.cells = cells
        parameterColumns = cellColumns.filter { !["scenario", "workload"].contains($0) }
        workloads = Array(Set(table.rows.compactMap { table.value("workload", in: $0) })).sorted()
        metrics = metricColumns.filter { name in cells.contains { $0.values[name] != nil } }
        declarations = table.declarations
        declarationOrder = table.environment?.metrics ?? []
        strategies = table.environment?.strategies ?? []
        headline = table.environment?.headlineMetrics ?? []
    }
}
