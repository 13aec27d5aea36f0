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
/// A metric regressed when the estimate is at least `threshold` and p < `alpha`: in interval terms, the estimate is
/// past the band and the one-sided interval of the ratio lies wholly above 1. Beside it each row carries the
/// pooled ratio's two-sided `confidence` interval (Hodges–Lehmann on the pairs, `RatioComparison`) and the verdict
/// that interval gives against ±`threshold`: `compare --paired` decides by that verdict (*slower*: the whole interval
/// beyond the band), the gate by its own one-sided rule, whose power at a slowdown of twice the threshold was
/// measured (`results/startup-gate-trials.csv`). Runs with an error and empty cells are skipped before pairing; a
/// pair with a value ≤ 0 gives no ratio.
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
        /// The pooled ratio current/base over the same pairs, with its two-sided interval and verdict.
        public let comparison: RatioComparison
    }

    public let baseline: ResultTable
    public let current: ResultTable
    /// The metrics judged.
    public let metrics: [String]
    /// The smallest pooled change that counts (0.05 = 5%).
    public let threshold: Double
    /// The test's significance level.
    public let alpha: Double
    /// The two-sided interval's confidence.
    public let confidence: Double

    /// Prepares the verdict.
    /// - Throws: `CompareError.unknownMetric` when a file lacks a metric's column.
    public init(
        baseline: ResultTable, current: ResultTable, metrics: [String], threshold: Double = 0.05, alpha: Double = 0.01,
        confidence: Double = 0.95
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
        self.confidence = confidence
    }

    /// The pairs of `metric` that give a ratio (both values > 0), base and current side by side, cell by cell in
    /// the baseline's order.
    public func pairs(_ metric: String) -> (base: [Double], current: [Double]) {
        let before = Self.byCell(baseline, metric: metric)
        let after = Self.byCell(current, metric: metric)
        var pairs: (base: [Double], current: [Double]) = ([], [])
        for (key, values) in before.order.map({ ($0, before.values[$0] ?? []) }) {
            for (b, c) in zip(values, after.values[key] ?? []) where b > 0 && c > 0 {
                pairs.base.append(b)
                pairs.current.append(c)
            }
        }
        return pairs
    }

    /// The log ratios of `metric`, pair by pair, cell by cell in the baseline's order.
    public func logRatios(_ metric: String) -> [Double] {
        let pairs = pairs(metric)
        return zip(pairs.base, pairs.current).map { Foundation.log($1 / $0) }
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
            let pairs = pairs(metric)
            return Row(
                metric: metric, pairs: ratios.count, change: change, pValue: p,
                regressed: Self.isRegression(change: change, pValue: p, threshold: threshold, alpha: alpha),
                comparison: RatioComparison(
                    base: pairs.base, current: pairs.current, pairing: .paired,
                    polarity: Self.polarity(of: metric, in: [current, baseline]), threshold: threshold,
                    confidence: confidence))
        }
    }

    /// Every metric's pooled ratio as a comparison row (its cell `pooled=every cell`, its counts the pairs), for the
    /// tables and CSV `compare` writes.
    /// - Throws: `CompareError.noPairs` for a metric with no pair of runs to compare.
    public func comparisonRows() throws -> [ResultComparison.Row] {
        try rows().map { row in
            let pairs = pairs(row.metric)
            let declaration = current.declarations[row.metric] ?? baseline.declarations[row.metric]
            return ResultComparison.Row(
                cell: ["pooled": "every cell"], cellLabel: "pooled over every cell", metric: row.metric,
                baselineMedian: pairs.base.median, currentMedian: pairs.current.median, baselineCount: row.pairs,
                currentCount: row.pairs,
                currentRange: pairs.current.min().flatMap { low in pairs.current.max().map { low...$0 } },
                comparison: row.comparison, polarity: row.comparison.polarity,
                unit: declaration?.unit.rawValue ?? "")
        }
    }

    /// Which way `metric` gets better, as the first table that declares it says; lower (the gate's times) when none
    /// does.
    static func polarity(of metric: String, in tables: [ResultTable]) -> MetricPolarity {
        tables.lazy.compactMap { $0.declarations[metric]?.polarity }.first ?? .lowerIsBetter
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
