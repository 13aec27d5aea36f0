import Foundation

/// The startup gate's pooled verdict: did the measured path as a whole get slower?
///
/// A change to the startup path slows every cell a little; per cell, a few noisy launches a side cannot tell 10%
/// from noise, but all cells together can. The gate runs base and current one repetition at a time, alternating,
/// so the k-th run of a cell on each side ran side by side; each such pair gives one log ratio
/// log(current / base). Per metric, over every pair of every cell:
/// - the estimate is the median log ratio, as a relative change (exp(median) − 1);
/// - a one-sided Wilcoxon signed-rank test (`WilcoxonSignedRank`) asks whether the ratios lean towards larger.
///
/// A metric regressed when the estimate is at least `threshold` and p < `alpha`. Runs with an error and empty
/// cells are skipped before pairing; a pair with a value ≤ 0 gives no ratio.
///
/// For example:
/// ```swift
/// let gate = try PooledComparison(baseline: base, current: current, metrics: ["cpu_ms"])
/// let regressed = try gate.rows().contains { $0.regressed }
/// ```
public struct PooledComparison: Sendable {
    /// One metric's pooled verdict.
    public struct Row: Sendable, Equatable {
        public let metric: String
        /// Pairs of runs that gave a ratio.
        public let pairs: Int
        /// exp(median log ratio) − 1: +0.08 is 8% larger on the current side.
        public let change: Double
        /// The one-sided signed-rank test's p-value.
        public let pValue: Double
        /// Whether the change is at least the threshold and p below alpha.
        public let regressed: Bool
    }

    public let baseline: ResultTable
    public let current: ResultTable
    /// The metrics judged.
    public let metrics: [String]
    /// The smallest pooled change that counts (0.05 = 5%).
    public let threshold: Double
    /// The test's significance level.
    public let alpha: Double

    /// Prepares the verdict.
    /// - Throws: `CompareError.unknownMetric` when a file lacks a metric's column.
    public init(
        baseline: ResultTable, current: ResultTable, metrics: [String], threshold: Double = 0.05, alpha: Double = 0.01
    ) throws {
        for metric in metrics {
            for table in [baseline, current] where !table.columns.contains(metric) {
                throw CompareError.unknownMetric(metric, file: table.source, available: table.metricColumns)
            }
        }
        self.baseline = baseline
        self.current = current
        self.metrics = metrics
        self.threshold = threshold
        self.alpha = alpha
    }

    /// The log ratios of `metric`, pair by pair, cell by cell in the baseline's order.
    public func logRatios(_ metric: String) -> [Double] {
        let before = Self.byCell(baseline, metric: metric)
        let after = Self.byCell(current, metric: metric)
        var ratios: [Double] = []
        for (key, values) in before.order.map({ ($0, before.values[$0] ?? []) }) {
            for (b, c) in zip(values, after.values[key] ?? []) where b > 0 && c > 0 {
                ratios.append(Foundation.log(c / b))
            }
        }
        return ratios
    }

    /// The gate's rule: a pooled change of at least `threshold` that the test does not put down to chance.
    public static func isRegression(change: Double, pValue: Double, threshold: Double, alpha: Double) -> Bool {
        change >= threshold && pValue < alpha
    }

    /// Every metric's verdict.
    /// - Throws: `CompareError.noPairs` for a metric with no pair of runs to compare.
    public func rows() throws -> [Row] {
        try metrics.map { metric in
            let ratios = logRatios(metric).sorted()
            guard !ratios.isEmpty else { throw CompareError.noPairs(metric) }
            let middle = ratios.count / 2
            let median = ratios.count % 2 == 1 ? ratios[middle] : (ratios[middle - 1] + ratios[middle]) / 2
            let change = Foundation.exp(median) - 1
            let p = WilcoxonSignedRank(greater: ratios).pValue
            return Row(
                metric: metric, pairs: ratios.count, change: change, pValue: p,
                regressed: Self.isRegression(change: change, pValue: p, threshold: threshold, alpha: alpha))
        }
    }

    /// The cells' values of `metric` in file order (the repetitions' order), runs with an error or no value left
    /// out; cells keyed by the columns that name them.
    private static func byCell(_ table: ResultTable, metric: String) -> (
        order: [[String]], values: [[String]: [Double]]
    ) {
        let indexes = table.cellColumns(metrics: [metric]).compactMap { table.columns.firstIndex(of: $0) }
        // The metric's column after the identifying ones (startup's `objects` is both).
        guard let column = table.columns.lastIndex(of: metric) else { return ([], [:]) }
        var order: [[String]] = []
        var values: [[String]: [Double]] = [:]
        for row in table.rows {
            if let error = table.value("error", in: row), !error.isEmpty { continue }
            guard let value = Double(row[column]) else { continue }
            let key = indexes.map { row[$0] }
            if values[key] == nil { order.append(key) }
            values[key, default: []].append(value)
        }
        return (order, values)
    }
}
