import Foundation

/// One run's cells compared with their reference cells: each cell whose reference parameter has another value is
/// compared with its twin, the cell that differs from it in that parameter alone (`strategy=separate-stacks`
/// against `strategy=shared-coordinator` at the same store and batch size), as `ResultComparison` compares two
/// files: the ratio cell/twin with its confidence interval, unpaired (the cells of a round run one after another,
/// minutes apart), and a verdict against ±`threshold`.
///
/// For example, the summary after `stacklab run`:
/// ```swift
/// let within = try WithinRunComparison(table, reference: Scenario.Reference(column: "strategy", value: "shared-coordinator"))
/// for row in try within.rows() { print(row.cellLabel, row.metric, row.verdict) }
/// ```
public struct WithinRunComparison: Sendable {
    public let table: ResultTable
    /// The parameter and the value of the cells the others are compared with.
    public let reference: Scenario.Reference
    /// The metrics compared.
    public let metrics: [String]
    /// The band's half-width: a ratio within 1 ± threshold is the same.
    public let threshold: Double
    /// The intervals' confidence.
    public let confidence: Double

    /// Prepares the comparison; `metrics` empty compares every metric column.
    /// - Throws: `CompareError.unknownMetric` for a metric the file lacks, `CompareError.noReference` when the file
    ///   has no cell with the reference's value.
    public init(
        _ table: ResultTable, reference: Scenario.Reference, metrics: [String] = [], threshold: Double = 0.10,
        confidence: Double = 0.95
    ) throws {
        for metric in metrics where !table.columns.contains(metric) {
            throw CompareError.unknownMetric(metric, file: table.source, available: table.metricColumns)
        }
        guard let column = table.columns.firstIndex(of: reference.column),
            table.rows.contains(where: { $0[column] == reference.value })
        else {
            throw CompareError.noReference(reference.description, file: table.source)
        }
        self.table = table
        self.reference = reference
        self.metrics = metrics.isEmpty ? table.metricColumns : metrics
        self.threshold = threshold
        self.confidence = confidence
    }

    /// The columns that name a cell.
    public var cellColumns: [String] { table.cellColumns(metrics: metrics) }

    /// Every cell that has a twin, against it, for every metric a run of either has; cells in the file's order.
    public func rows() -> [ResultComparison.Row] {
        let columns = cellColumns
        let indexes = columns.compactMap { table.columns.firstIndex(of: $0) }
        guard let position = columns.firstIndex(of: reference.column) else { return [] }
        var order: [[String]] = []
        var runs: [[String]: [[String]]] = [:]
        for row in table.rows {
            let key = indexes.map { row[$0] }
            if runs[key] == nil { order.append(key) }
            runs[key, default: []].append(row)
        }
        let declarations = table.declarations
        var result: [ResultComparison.Row] = []
        for key in order where key[position] != reference.value {
            var twin = key
            twin[position] = reference.value
            guard let twinRuns = runs[twin], let ownRuns = runs[key] else { continue }
            let cell = Dictionary(uniqueKeysWithValues: zip(columns, key))
            let label = ResultComparison.label(columns, key)
            for metric in metrics {
                let base = ResultComparison.values(metric, rows: twinRuns, in: table)
                let current = ResultComparison.values(metric, rows: ownRuns, in: table)
                if base.isEmpty && current.isEmpty { continue }
                let polarity = declarations[metric]?.polarity ?? .neutral
                result.append(
                    ResultComparison.Row(
                        cell: cell, cellLabel: label, metric: metric, baselineMedian: base.median,
                        currentMedian: current.median, baselineCount: base.count, currentCount: current.count,
                        currentRange: current.min().flatMap { low in current.max().map { low...$0 } },
                        comparison: RatioComparison(
                            base: base, current: current, pairing: .unpaired, polarity: polarity,
                            threshold: threshold, confidence: confidence),
                        polarity: polarity, unit: declarations[metric]?.unit.rawValue ?? ""))
            }
        }
        return result
    }
}
