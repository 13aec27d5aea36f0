import Foundation
import LabCore
import Testing

@Suite("Mann-Whitney U")
struct MannWhitneyUTests {
    @Test("complete separation of 4 against 4 gives the exact two-sided p of 2/70")
    func separated() {
        let test = MannWhitneyU([1, 2, 3, 4], [5, 6, 7, 8])
        #expect(test.u == 0)
        #expect(test.isExact)
        #expect(abs(test.pValue - 2.0 / 70) < 1e-12)
        #expect(abs(MannWhitneyU([5, 6, 7, 8], [1, 2, 3, 4]).pValue - 2.0 / 70) < 1e-12)
    }

    @Test("identical samples are not different at all")
    func identical() {
        #expect(MannWhitneyU([3, 3, 3], [3, 3, 3]).pValue == 1)
        #expect(MannWhitneyU([1, 2, 3, 4, 5], [1, 2, 3, 4, 5]).pValue == 1)
    }

    @Test(
        "with ties the exact p equals a brute-force count over every relabelling",
        arguments: [
            ([10.1, 10.4, 9.8, 10.0, 10.2], [10.3, 9.9, 10.5, 10.0, 10.1]),
            ([1, 1, 2, 2, 3], [2, 3, 3, 4, 4, 4]),
            ([5, 5, 5, 6], [5, 6, 6, 6, 7]),
        ])
    func tiesMatchBruteForce(first: [Double], second: [Double]) {
        #expect(abs(MannWhitneyU(first, second).pValue - bruteForceP(first, second)) < 1e-12)
    }

    @Test("large samples use the normal approximation, matching scipy's asymptotic p (0.024041)")
    func normalApproximation() {
        let first: [Double] = [
            10.346, 10.822, 10.33, 8.697, 10.905, 10.446, 9.463, 10.581, 10.365, 10.294, 10.028, 10.547, 9.264, 9.837,
            9.518, 10.599, 10.04, 9.708, 9.218, 9.743, 10.008, 9.724, 11.294, 11.007, 7.289, 8.111, 9.825, 9.578,
            10.214, 10.217, 12.118, 8.888, 9.622, 12.043, 10.647, 10.663, 9.486, 8.352, 10.167, 10.109,
        ]
        let second: [Double] = [
            9.373, 9.917, 10.528, 9.655, 10.502, 10.695, 10.636, 10.094, 11.194, 11.491, 10.921, 9.782, 11.332,
            10.099, 11.479, 9.528, 11.514, 10.58, 9.351, 10.286, 10.654, 10.873, 9.618, 9.493, 10.8, 10.133, 10.836,
            11.36, 8.951, 10.854, 11.825, 10.302, 9.789, 11.352, 10.853, 11.496, 10.255, 9.118, 10.49, 10.154,
        ]
        let test = MannWhitneyU(first, second)
        #expect(!test.isExact)
        #expect(test.u == 565)
        #expect(abs(test.pValue - 0.024040755240491155) < 1e-9)
    }

    /// Every way to split the pooled values into groups of the first sample's size, counted directly.
    private func bruteForceP(_ first: [Double], _ second: [Double]) -> Double {
        let pooled = first + second
        let ranks = pooled.map { value in
            Double(pooled.filter { $0 < value }.count) + Double(pooled.filter { $0 == value }.count + 1) / 2
        }
        let mean = Double(first.count) * Double(pooled.count + 1) / 2
        let observed = abs(ranks.prefix(first.count).reduce(0, +) - mean)
        var extreme = 0
        var all = 0
        func choose(_ start: Int, _ left: Int, _ sum: Double) {
            if left == 0 {
                all += 1
                if abs(sum - mean) >= observed - 1e-9 { extreme += 1 }
                return
            }
            guard start < ranks.count else { return }
            for index in start..<ranks.count { choose(index + 1, left - 1, sum + ranks[index]) }
        }
        choose(0, first.count, 0)
        return Double(extreme) / Double(all)
    }
}

@Suite("Result comparison")
struct CompareTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Fixtures/compare")

    /// `text` as a result table whose sidecar declares `metrics`, as the lab's runs write it.
    static func table(_ text: String, source: String, declaring metrics: [Metric]) throws -> ResultTable {
        var table = try ResultTable(text: text, source: source)
        var record = EnvironmentRecord.reconstructed(for: table, workload: "test", command: [])
        record.metrics = metrics
        table.environment = record
        return table
    }

    func comparison(metrics: [String] = [], threshold: Double = 0.10) throws -> [ResultComparison.Row] {
        try ResultComparison(
            baseline: ResultTable(contentsOf: Self.fixtures.appendingPathComponent("baseline.csv")),
            current: ResultTable(contentsOf: Self.fixtures.appendingPathComponent("current.csv")),
            metrics: metrics, threshold: threshold
        ).rows()
    }

    func verdicts(_ rows: [ResultComparison.Row], metric: String) -> [String: ComparisonVerdict] {
        Dictionary(
            uniqueKeysWithValues: rows.filter { $0.metric == metric }.map {
                ("\($0.cell["store"]!)/\($0.cell["mode"]!)", $0.verdict)
            })
    }

    @Test("the recorded fixtures give their known verdicts per cell and metric")
    func knownAnswers() throws {
        let rows = try comparison()
        #expect(Set(rows.map(\.metric)) == ["time_to_first_screen_ms", "objects_per_s", "killed_by_watchdog"])
        #expect(
            verdicts(rows, metric: "time_to_first_screen_ms") == [
                "sqlite/sync": .regressed, "sqlite/async": .unchanged, "lmdb/sync": .inconclusive,
                "lmdb/async": .improved, "memory/sync": .unchanged,
            ])
        #expect(
            verdicts(rows, metric: "objects_per_s") == [
                "sqlite/sync": .unchanged, "sqlite/async": .unchanged, "lmdb/sync": .unchanged,
                "lmdb/async": .unchanged, "memory/sync": .improved,
            ])
        #expect(Set(verdicts(rows, metric: "killed_by_watchdog").values) == [.unchanged])
        let regressed = try #require(rows.first { $0.verdict == .regressed })
        #expect(regressed.baselineMedian == 120.1 && regressed.currentMedian == 170.8)
        #expect(abs(regressed.pValue! - 2.0 / 252) < 1e-12)
    }

    @Test("a repetition with an error is left out, not read as a value")
    func errorRowsSkipped() throws {
        let row = try #require(
            try comparison(metrics: ["time_to_first_screen_ms"]).first {
                $0.cell["store"] == "sqlite" && $0.cell["mode"] == "async"
            })
        #expect(row.baselineCount == 5 && row.currentCount == 4)
    }

    @Test("the noisy cell never comes out regressed, whatever the threshold")
    func noisyCellIsNotARegression() throws {
        for threshold in [0.0, 0.05, 0.10, 0.30] {
            let verdict = verdicts(try comparison(threshold: threshold), metric: "time_to_first_screen_ms")["lmdb/sync"]
            #expect(verdict == .inconclusive || verdict == .unchanged)
        }
        // With a threshold above its 36% median change the same cell is unchanged.
        #expect(verdicts(try comparison(threshold: 0.40), metric: "time_to_first_screen_ms")["lmdb/sync"] == .unchanged)
    }

    @Test("launches killed by the watchdog in every repetition are a regression")
    func killedLaunches() throws {
        let header =
            "scenario,store,mode,repetition,run_id,timestamp,time_to_first_screen_ms,killed_by_watchdog,error\n"
        let base = header + (1...5).map { "s,sqlite,sync,\($0),b\($0),t,\(100 + $0),false," }.joined(separator: "\n")
        let current = header + (1...5).map { "s,sqlite,sync,\($0),c\($0),t,,true," }.joined(separator: "\n")
        let declared: [Metric] = [.timeToFirstScreenMilliseconds, .killedByWatchdog]
        let rows = try ResultComparison(
            baseline: Self.table(base, source: "base", declaring: declared),
            current: Self.table(current, source: "current", declaring: declared)
        ).rows()
        let killed = try #require(rows.first { $0.metric == "killed_by_watchdog" })
        #expect(killed.verdict == .regressed)
        let firstScreen = try #require(rows.first { $0.metric == "time_to_first_screen_ms" })
        #expect(firstScreen.verdict == .inconclusive && firstScreen.note == "no current values")
    }

    @Test("each metric is judged as its declaration says: hitch time per second lower, objects per second higher")
    func declaredDirection() throws {
        let header = "scenario,store,repetition,run_id,timestamp,main_hitch_ms_per_s,objects_per_s,error\n"
        let base = header + (1...5).map { "s,sqlite,\($0),b\($0),t,\(200 + $0),\(1000 + $0)," }.joined(separator: "\n")
        let current =
            header + (1...5).map { "s,sqlite,\($0),c\($0),t,\(20 + $0),\(2000 + $0)," }.joined(separator: "\n")
        let declared: [Metric] = [.mainHitchMillisecondsPerSecond, .objectsPerSecond]
        let comparison = try ResultComparison(
            baseline: Self.table(base, source: "base", declaring: declared),
            current: Self.table(current, source: "current", declaring: []))
        let rows = try comparison.rows()
        #expect(rows.first { $0.metric == "main_hitch_ms_per_s" }?.verdict == .improved)
        #expect(rows.first { $0.metric == "objects_per_s" }?.verdict == .improved)
        #expect(comparison.warnings.isEmpty, "the baseline's declarations cover the current file's columns")
    }

    @Test("a column no sidecar declares is judged neutral, with a warning naming it and the files")
    func undeclaredIsNeutral() throws {
        let header = "scenario,store,repetition,run_id,timestamp,wall_ms,rows_per_s,error\n"
        let base = header + (1...5).map { "s,sqlite,\($0),b\($0),t,\(10 + $0),\(1000 + $0)," }.joined(separator: "\n")
        let current = header + (1...5).map { "s,sqlite,\($0),c\($0),t,\(30 + $0),\(500 + $0)," }.joined(separator: "\n")
        let comparison = try ResultComparison(
            baseline: Self.table(base, source: "base.csv", declaring: [.wallMilliseconds]),
            current: ResultTable(text: current, source: "current.csv"))
        let rows = try comparison.rows()
        #expect(rows.first { $0.metric == "wall_ms" }?.verdict == .regressed, "declared by the baseline's sidecar")
        #expect(rows.first { $0.metric == "rows_per_s" }?.verdict == .changed, "undeclared: neither better nor worse")
        #expect(comparison.undeclaredMetrics == ["rows_per_s"])
        let warning = try #require(comparison.warnings.first)
        #expect(warning.contains("no declaration of rows_per_s") && warning.contains("base.csv or current.csv"))
        #expect(warning.contains("judged neutral"))
    }

    @Test("a count that changed for real is 'changed', neither a regression nor an improvement")
    func neutralMetricsAreNotJudged() throws {
        #expect(Metric.peakMemoryMegabytes.polarity == .lowerIsBetter && Metric.peakMemoryMegabytes.unit == .megabytes)
        let header = "scenario,store,repetition,run_id,timestamp,fetches,wall_ms,error\n"
        let base = header + (1...5).map { "s,sqlite,\($0),b\($0),t,\(100 + $0),\(10 + $0)," }.joined(separator: "\n")
        let current = header + (1...5).map { "s,sqlite,\($0),c\($0),t,\(300 + $0),\(30 + $0)," }.joined(separator: "\n")
        let declared: [Metric] = [.fetches, .wallMilliseconds]
        let rows = try ResultComparison(
            baseline: Self.table(base, source: "base", declaring: declared),
            current: Self.table(current, source: "current", declaring: declared)
        ).rows()
        #expect(rows.first { $0.metric == "fetches" }?.verdict == .changed)
        #expect(rows.first { $0.metric == "wall_ms" }?.verdict == .regressed)
    }

    @Test("a parameter named like a metric (startup's objects) still tells cells apart")
    func parameterNamedLikeAMetric() throws {
        let header = "scenario,store,objects,repetition,run_id,timestamp,time_to_first_screen_ms,objects,error\n"
        func table(_ slow: Int, _ source: String) throws -> ResultTable {
            let rows = [1000, 100000].flatMap { size in
                (1...5).map { "s,sqlite,\(size),\($0),r\($0),t,\((size == 100000 ? slow : 10) + $0),\(size)," }
            }
            return try Self.table(
                header + rows.joined(separator: "\n"), source: source, declaring: [.timeToFirstScreenMilliseconds])
        }
        let rows = try ResultComparison(baseline: table(100, "base"), current: table(300, "current")).rows()
        let screens = rows.filter { $0.metric == "time_to_first_screen_ms" }
        #expect(screens.count == 2, "one row per size, not the two sizes pooled into one cell")
        #expect(screens.first { $0.cell["objects"] == "100000" }?.verdict == .regressed)
        #expect(screens.first { $0.cell["objects"] == "1000" }?.verdict == .unchanged)
    }

    @Test("a cell's label leaves out columns the workload leaves empty")
    func labelSkipsEmptyColumns() throws {
        let text =
            "scenario,store,strategy,mode,repetition,run_id,timestamp,time_to_first_frame_ms,error\n"
            + (1...4).map { "s,sqlite,,sync,\($0),r\($0),t,\(20 + $0)," }.joined(separator: "\n")
        let table = try ResultTable(text: text, source: "startup")
        let row = try #require(try ResultComparison(baseline: table, current: table).rows().first)
        #expect(row.cellLabel == "scenario=s store=sqlite mode=sync")
        #expect(row.cell["strategy"] == "" && row.verdict == .unchanged)
    }

    @Test("bad input names the file and what is wrong")
    func badInput() throws {
        #expect(throws: CompareError.malformed("x.csv", line: 3, reason: "2 fields where the header has 3")) {
            try ResultTable(text: "a,b,c\n1,2,3\n1,2\n", source: "x.csv")
        }
        let table = try ResultTable(contentsOf: Self.fixtures.appendingPathComponent("baseline.csv"))
        #expect(throws: CompareError.self) {
            try ResultComparison(baseline: table, current: table, metrics: ["latency_ms"])
        }
        let other = try ResultTable(text: "store,timestamp,x_ms\nsqlite,t,1\n", source: "other")
        #expect(throws: CompareError.self) { try ResultComparison(baseline: table, current: other).rows() }
        #expect(throws: CompareError.badThreshold("ten")) { try ResultComparison.parseThreshold("ten") }
        #expect(try ResultComparison.parseThreshold("10%") == 0.10)
        #expect(try ResultComparison.parseThreshold("2.5") == 0.025)
    }

    @Test("the comparison CSV spells out each cell's columns and reads back")
    func comparisonCSV() throws {
        let baseline = try ResultTable(contentsOf: Self.fixtures.appendingPathComponent("baseline.csv"))
        let current = try ResultTable(contentsOf: Self.fixtures.appendingPathComponent("current.csv"))
        let comparison = try ResultComparison(
            baseline: baseline, current: current, metrics: ["time_to_first_screen_ms"])
        let rows = try comparison.rows()
        let csv = ComparisonReport.csv(rows, cellColumns: comparison.cellColumns, threshold: 0.10)
        let back = try ResultTable(text: csv, source: "comparison")
        #expect(Array(back.columns.prefix(5)) == ["scenario", "workload", "store", "strategy", "objects"])
        #expect(back.rows.count == 5)
        #expect(back.rows.compactMap { back.value("verdict", in: $0) }.filter { $0 == "regressed" }.count == 1)
        #expect(
            ComparisonReport.table(rows, threshold: 0.10, alpha: 0.05).contains(
                "1 improved, 2 unchanged, 1 regressed, 1 inconclusive"))
    }
}
