import Foundation

/// Compares a current result CSV with a baseline, cell by cell and metric by metric, from the repetitions.
///
/// Method, per cell and metric: take the values of every repetition that has no error (empty cells
/// skipped); the relative change is (median current − median baseline) / |median baseline|. If its size is
/// below `threshold` the metric is *unchanged*. Otherwise a two-sided Mann-Whitney U test decides: with
/// p < `alpha` it is *improved* or *regressed* by the direction of the change, and *inconclusive* if not
/// (too few or too noisy repetitions — with 3 against 3 the smallest possible p is 0.1, so use at least 4).
/// Each metric says which way is better (`Metric.polarity`, declared in the files' sidecars: the current's,
/// else the baseline's): times lower, throughput higher; a count that changed for real is *changed*, neither
/// better nor worse, and so is a column neither sidecar declares (`undeclaredMetrics`, which the verbs warn of).
public struct ResultComparison: Sendable {
    /// One metric of one cell, compared.
    public struct Row: Sendable, Equatable {
        /// The cell: its identifying column values, in the files' column order.
        public let cell: [String: String]
        /// The cell as `store=sqlite strategy=…`, for tables.
        public let cellLabel: String
        public let metric: String
        public let baselineMedian: Double?
        public let currentMedian: Double?
        public let baselineCount: Int
        public let currentCount: Int
        /// The smallest and largest current value, when there are any: the spread a tracking chart shows.
        public let currentRange: ClosedRange<Double>?
        /// (current − baseline) / |baseline| of the medians, when both exist.
        public let relativeChange: Double?
        /// The Mann-Whitney p-value, when both sides have values.
        public let pValue: Double?
        public let verdict: ComparisonVerdict
        /// Why the verdict is inconclusive, if it is for a reason other than the test.
        public let note: String
        /// Which way the metric gets better, as declared (neutral when undeclared).
        public let polarity: MetricPolarity
        /// What the metric counts, as declared (empty when undeclared).
        public let unit: String
    }

    public let baseline: ResultTable
    public let current: ResultTable
    /// The metrics compared.
    public let metrics: [String]
    /// The smallest relative change of the medians that counts (0.10 = 10%).
    public let threshold: Double
    /// The significance level of the test.
    public let alpha: Double

    /// Prepares a comparison; `metrics` empty means every metric column the two files share.
    public init(
        baseline: ResultTable, current: ResultTable, metrics: [String] = [], threshold: Double = 0.10,
        alpha: Double = 0.05
    ) throws {
        let shared = baseline.metricColumns.filter(current.metricColumns.contains)
        for metric in metrics {
            for table in [baseline, current] where !table.columns.contains(metric) {
                throw CompareError.unknownMetric(metric, file: table.source, available: table.metricColumns)
            }
        }
        let chosen = metrics.isEmpty ? shared : metrics
        let baselineCells = baseline.cellColumns(metrics: chosen)
        let currentCells = current.cellColumns(metrics: chosen)
        guard Set(baselineCells) == Set(currentCells) else {
            throw CompareError.cellColumnsDiffer(baseline: baselineCells, current: currentCells)
        }
        self.baseline = baseline
        self.current = current
        self.metrics = chosen
        self.threshold = threshold
        self.alpha = alpha
    }

    /// The columns that name a cell, in the baseline's order.
    public var cellColumns: [String] { baseline.cellColumns(metrics: metrics) }

    /// The declaration of `metric`: the current file's, else the baseline's; nil when neither declares it.
    public func declaration(of metric: String) -> Metric? {
        current.declarations[metric] ?? baseline.declarations[metric]
    }

    /// Which way `metric` gets better, as declared; neutral for a column neither file declares.
    public func polarity(of metric: String) -> MetricPolarity {
        declaration(of: metric)?.polarity ?? .neutral
    }

    /// The compared metrics neither file declares (files without a sidecar, or from before the lab recorded
    /// declarations): judged neutral.
    public var undeclaredMetrics: [String] { metrics.filter { declaration(of: $0) == nil } }

    /// What a verb should say on standard error before its verdicts: undeclared columns, unreadable sidecars.
    public var warnings: [String] {
        var warnings = [baseline, current].compactMap(\.sidecarProblem)
        let undeclared = undeclaredMetrics
        if !undeclared.isEmpty {
            let files = [baseline, current].filter { table in undeclared.contains { table.declarations[$0] == nil } }
            warnings.append(
                "no declaration of \(undeclared.joined(separator: ", ")) in the sidecar of "
                    + files.map(\.source).joined(separator: " or ")
                    + ": judged neutral (changed or unchanged, never improved or regressed); "
                    + "`stacklab declare` adds the workload's declarations to a sidecar")
        }
        return warnings
    }

    /// Parses `10%`, `10` or `2.5%` into a fraction (0.10, 0.10, 0.025).
    public static func parseThreshold(_ text: String) throws -> Double {
        let number = text.hasSuffix("%") ? String(text.dropLast()) : text
        guard let percent = Double(number.trimmingCharacters(in: .whitespaces)), percent >= 0, percent <= 1000 else {
            throw CompareError.badThreshold(text)
        }
        return percent / 100
    }

    /// Compares every cell present in either file, for every metric, in the baseline's cell order.
    public func rows() throws -> [Row] {
        let baselineGroups = Self.group(baseline, by: cellColumns)
        let currentGroups = Self.group(current, by: cellColumns)
        guard baselineGroups.keys.contains(where: { currentGroups.index(forKey: $0) != nil }) else {
            throw CompareError.noCommonCells
        }
        var order = baselineGroups.order
        order += currentGroups.order.filter { baselineGroups.index(forKey: $0) == nil }
        var result: [Row] = []
        for key in order {
            let cell = Dictionary(uniqueKeysWithValues: zip(cellColumns, key))
            // Columns a workload leaves empty (a startup run has no strategy) would only clutter the label.
            let label = zip(cellColumns, key).filter { !$1.isEmpty }.map { "\($0)=\($1)" }.joined(separator: " ")
            for metric in metrics {
                let before = Self.values(metric, rows: baselineGroups.rows(forKey: key), in: baseline)
                let after = Self.values(metric, rows: currentGroups.rows(forKey: key), in: current)
                result.append(compare(metric: metric, cell: cell, label: label, before: before, after: after))
            }
        }
        return result
    }

    private func compare(metric: String, cell: [String: String], label: String, before: [Double], after: [Double])
        -> Row
    {
        let baselineMedian = before.median
        let currentMedian = after.median
        var relative: Double?
        if let b = baselineMedian, let c = currentMedian {
            relative = b == 0 ? (c == 0 ? 0 : (c > 0 ? .infinity : -.infinity)) : (c - b) / abs(b)
        }
        let test = before.isEmpty || after.isEmpty ? nil : MannWhitneyU(before, after)
        let verdict: ComparisonVerdict
        var note = ""
        if let relative, abs(relative) < threshold {
            verdict = .unchanged
        } else if let relative, let test {
            if test.pValue < alpha {
                switch polarity(of: metric) {
                case .higherIsBetter: verdict = relative > 0 ? .improved : .regressed
                case .lowerIsBetter: verdict = relative < 0 ? .improved : .regressed
                case .neutral: verdict = .changed
                }
            } else {
                verdict = .inconclusive
                note = "p ≥ \(alpha)"
            }
        } else {
            verdict = .inconclusive
            note =
                before.isEmpty && after.isEmpty
                ? "no values" : (before.isEmpty ? "no baseline values" : "no current values")
        }
        return Row(
            cell: cell, cellLabel: label, metric: metric, baselineMedian: baselineMedian, currentMedian: currentMedian,
            baselineCount: before.count, currentCount: after.count,
            currentRange: after.min().flatMap { low in after.max().map { low...$0 } }, relativeChange: relative,
            pValue: test?.pValue, verdict: verdict, note: note, polarity: polarity(of: metric),
            unit: declaration(of: metric)?.unit.rawValue ?? "")
    }

    /// Numbers of `metric` in rows without an error; `true`/`false` count as 1/0 (e.g. killed_by_watchdog).
    private static func values(_ metric: String, rows: [[String]], in table: ResultTable) -> [Double] {
        rows.compactMap { row -> Double? in
            if let error = table.value("error", in: row), !error.isEmpty { return nil }
            guard let text = table.value(metric, in: row) else { return nil }
            switch text.lowercased() {
            case "true": return 1
            case "false": return 0
            default: return Double(text)
            }
        }
    }

    private static func group(_ table: ResultTable, by columns: [String]) -> CellGroups {
        let indexes = columns.map { table.columns.firstIndex(of: $0)! }
        var groups = CellGroups()
        for row in table.rows { groups.append(row, key: indexes.map { row[$0] }) }
        return groups
    }
}

/// Rows grouped by cell key, keeping the order in which cells first appear.
private struct CellGroups {
    private(set) var order: [[String]] = []
    private var rowsByKey: [[String]: [[String]]] = [:]

    var keys: Dictionary<[String], [[String]]>.Keys { rowsByKey.keys }

    mutating func append(_ row: [String], key: [String]) {
        if rowsByKey[key] == nil { order.append(key) }
        rowsByKey[key, default: []].append(row)
    }

    func index(forKey key: [String]) -> Dictionary<[String], [[String]]>.Index? { rowsByKey.index(forKey: key) }

    func rows(forKey key: [String]) -> [[String]] { rowsByKey[key] ?? [] }
}
