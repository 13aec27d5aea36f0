import Foundation

/// Compares a current result CSV with a baseline, cell by cell and metric by metric, from the repetitions.
///
/// Method, per cell and metric: take the values of every repetition that has no error (empty cells skipped) and
/// compare them as the ratio current/base with its confidence interval (`RatioComparison`: Hodges–Lehmann, from
/// every run of one side against every run of the other, or the k-th runs matched when the files' runs were
/// paired). The verdict is *faster* or *slower* when the whole interval lies beyond ±`threshold`, *same* when it
/// lies inside, *unresolved* otherwise (with the repetitions that would likely resolve it) or when there are too
/// few repetitions for an interval (at 95%, four a side, or six pairs). Each metric says which way is better
/// (`Metric.polarity`, declared in the files' sidecars: the current's, else the baseline's): times lower,
/// throughput higher; a count whose interval lies beyond the band is *changed*, neither better nor worse, and so
/// is a column neither sidecar declares (`undeclaredMetrics`, which the verbs warn of). A metric no run of a cell
/// has on either side (a merge count under `main-only`) is left out, not compared.
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
        /// The ratio current/base with its interval, and the verdict.
        public let comparison: RatioComparison
        /// Which way the metric gets better, as declared (neutral when undeclared).
        public let polarity: MetricPolarity
        /// What the metric counts, as declared (empty when undeclared).
        public let unit: String

        /// What the comparison concludes.
        public var verdict: ComparisonVerdict { comparison.verdict }
        /// The estimated change, ratio − 1, when both sides have values.
        public var relativeChange: Double? { comparison.change }
        /// Why the verdict is unresolved, if it is for a reason besides the interval's width.
        public var note: String { comparison.note }
    }

    public let baseline: ResultTable
    public let current: ResultTable
    /// The metrics compared.
    public let metrics: [String]
    /// The band's half-width: a change within ±threshold is the same (0.10 = 10%).
    public let threshold: Double
    /// The intervals' confidence (0.95).
    public let confidence: Double
    /// Whether the k-th runs of a cell on the two sides ran side by side.
    public let pairing: RatioComparison.Pairing

    /// Prepares a comparison; `metrics` empty means every metric column the two files share.
    /// - Throws: `CompareError` when a metric is not a column of both files or they name cells differently.
    public init(
        baseline: ResultTable, current: ResultTable, metrics: [String] = [], threshold: Double = 0.10,
        confidence: Double = 0.95, pairing: RatioComparison.Pairing = .unpaired
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
        self.confidence = confidence
        self.pairing = pairing
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
                    + ": judged neutral (changed or same, never faster or slower); "
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

    /// Parses `95%`, `95` or `0.95` into a confidence (0.95).
    /// - Throws: `CompareError.badConfidence` for anything else, or a confidence outside 50–99.99%.
    public static func parseConfidence(_ text: String) throws -> Double {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let percent = trimmed.hasSuffix("%")
        guard let number = Double(percent ? String(trimmed.dropLast()) : trimmed) else {
            throw CompareError.badConfidence(text)
        }
        let fraction = percent || number > 1 ? number / 100 : number
        guard fraction >= 0.5, fraction <= 0.9999 else { throw CompareError.badConfidence(text) }
        return fraction
    }

    /// Compares every cell present in either file, for every metric a run of the cell has on either side, in the
    /// baseline's cell order.
    /// - Throws: `CompareError.noCommonCells` when no cell is in both files.
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
            let label = Self.label(cellColumns, key)
            for metric in metrics {
                let before = Self.values(metric, rows: baselineGroups.rows(forKey: key), in: baseline)
                let after = Self.values(metric, rows: currentGroups.rows(forKey: key), in: current)
                // A metric the cell does not have (merges under main-only) is not a comparison.
                if before.isEmpty && after.isEmpty { continue }
                result.append(compare(metric: metric, cell: cell, label: label, before: before, after: after))
            }
        }
        return result
    }

    private func compare(metric: String, cell: [String: String], label: String, before: [Double], after: [Double])
        -> Row
    {
        Row(
            cell: cell, cellLabel: label, metric: metric, baselineMedian: before.median, currentMedian: after.median,
            baselineCount: before.count, currentCount: after.count,
            currentRange: after.min().flatMap { low in after.max().map { low...$0 } },
            comparison: RatioComparison(
                base: before, current: after, pairing: pairing, polarity: polarity(of: metric), threshold: threshold,
                confidence: confidence),
            polarity: polarity(of: metric), unit: declaration(of: metric)?.unit.rawValue ?? "")
    }

    /// A cell as `store=sqlite strategy=…`: columns a workload leaves empty (a startup run has no strategy) would only
    /// clutter it.
    static func label(_ columns: [String], _ key: [String]) -> String {
        zip(columns, key).filter { !$1.isEmpty }.map { "\($0)=\($1)" }.joined(separator: " ")
    }

    /// Numbers of `metric` in rows without an error; `true`/`false` count as 1/0 (e.g. killed_by_watchdog).
    static func values(_ metric: String, rows: [[String]], in table: ResultTable) -> [Double] {
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
