import Foundation
import LabCore
import Testing

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
                "sqlite/sync": .slower, "sqlite/async": .same, "lmdb/sync": .unresolved,
                "lmdb/async": .faster, "memory/sync": .same,
            ])
        #expect(
            verdicts(rows, metric: "objects_per_s") == [
                "sqlite/sync": .same, "sqlite/async": .same, "lmdb/sync": .same,
                "lmdb/async": .same, "memory/sync": .faster,
            ])
        #expect(Set(verdicts(rows, metric: "killed_by_watchdog").values) == [.same])
        let slower = try #require(rows.first { $0.verdict == .slower })
        #expect(slower.baselineMedian == 120.1 && slower.currentMedian == 170.8)
        // Five against five: the interval runs from the third smallest to the third largest of the 25 ratios.
        let ratios = try comparison().filter { $0.cellLabel == slower.cellLabel && $0.metric == slower.metric }
        #expect(ratios.count == 1)
        let interval = try #require(slower.comparison.interval)
        #expect(interval.lowerBound > 1.1 && interval.upperBound < 1.6)
    }

    @Test("a metric no run of a cell has on either side is left out, not counted as unresolved")
    func absentMetricLeftOut() throws {
        let header = "scenario,strategy,repetition,run_id,timestamp,wall_ms,merges,error\n"
        let runs = (1...4).flatMap {
            ["s,main-only,\($0),a\($0),t,\(10 + $0),,", "s,shared,\($0),b\($0),t,\(10 + $0),5,"]
        }
        let table = try Self.table(
            header + runs.joined(separator: "\n"), source: "run", declaring: [.wallMilliseconds, .merges])
        let rows = try ResultComparison(baseline: table, current: table).rows()
        #expect(rows.filter { $0.metric == "merges" }.map { $0.cell["strategy"] } == ["shared"])
        #expect(rows.filter { $0.metric == "wall_ms" }.count == 2)
    }

    @Test("paired runs are matched in order: a shift hidden by the spread between runs shows pair by pair")
    func pairedRuns() throws {
        let header = "scenario,store,repetition,run_id,timestamp,wall_ms,error\n"
        // Each round ran at its own pace (100 to 800 ms); the current side is 20% slower in every round.
        let paces = [100.0, 250, 400, 550, 700, 800, 180, 620]
        let base = header + paces.enumerated().map { "s,sqlite,\($0 + 1),b,t,\($1)," }.joined(separator: "\n")
        let current = header + paces.enumerated().map { "s,sqlite,\($0 + 1),c,t,\($1 * 1.2)," }.joined(separator: "\n")
        let tables = try [base, current].map { try Self.table($0, source: "x", declaring: [.wallMilliseconds]) }
        let unpaired = try #require(try ResultComparison(baseline: tables[0], current: tables[1]).rows().first)
        let paired = try #require(
            try ResultComparison(baseline: tables[0], current: tables[1], pairing: .paired).rows().first)
        #expect(unpaired.verdict == .unresolved)
        #expect(paired.verdict == .slower)
        #expect(abs(try #require(paired.comparison.ratio) - 1.2) < 1e-9)
    }

    @Test("a repetition with an error is left out, not read as a value")
    func errorRowsSkipped() throws {
        let row = try #require(
            try comparison(metrics: ["time_to_first_screen_ms"]).first {
                $0.cell["store"] == "sqlite" && $0.cell["mode"] == "async"
            })
        #expect(row.baselineCount == 5 && row.currentCount == 4)
    }

    @Test("the noisy cell never comes out slower, whatever the threshold, and names the runs that would resolve it")
    func noisyCellIsNotARegression() throws {
        for threshold in [0.0, 0.05, 0.10, 0.30] {
            let verdict = verdicts(try comparison(threshold: threshold), metric: "time_to_first_screen_ms")["lmdb/sync"]
            #expect(verdict == .unresolved || verdict == .same)
        }
        let noisy = try #require(
            try comparison().first {
                $0.metric == "time_to_first_screen_ms" && $0.cell["store"] == "lmdb" && $0.cell["mode"] == "sync"
            })
        // Its runs spread from 0.5 to 2 times each other: the interval reaches past both edges of the band.
        let interval = try #require(noisy.comparison.interval)
        #expect(interval.lowerBound < 0.9 && interval.upperBound > 1.1)
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
        #expect(killed.verdict == .slower)
        let firstScreen = try #require(rows.first { $0.metric == "time_to_first_screen_ms" })
        #expect(firstScreen.verdict == .unresolved && firstScreen.note == "no current values")
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
        #expect(rows.first { $0.metric == "main_hitch_ms_per_s" }?.verdict == .faster)
        #expect(rows.first { $0.metric == "objects_per_s" }?.verdict == .faster)
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
        #expect(rows.first { $0.metric == "wall_ms" }?.verdict == .slower, "declared by the baseline's sidecar")
        #expect(rows.first { $0.metric == "rows_per_s" }?.verdict == .changed, "undeclared: neither better nor worse")
        #expect(comparison.undeclaredMetrics == ["rows_per_s"])
        let warning = try #require(comparison.warnings.first)
        #expect(warning.contains("no declaration of rows_per_s") && warning.contains("base.csv or current.csv"))
        #expect(warning.contains("judged neutral"))
    }

    @Test("a count that changed for real is 'changed', neither slower nor faster")
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
        #expect(rows.first { $0.metric == "wall_ms" }?.verdict == .slower)
    }

    @Test("a parameter named like a metric (startup's objects) still tells cells apart")
    func parameterNamedLikeAMetric() throws {
        let header = "scenario,store,objects,repetition,run_id,timestamp,time_to_first_screen_ms,objects,error\n"
        func table(_ slow: Int, _ source: String) throws -> ResultTable {
            let rows = [1000, 100000].flatMap { size in
                (1...5).map { "s,sqlite,\(size),\($0),r\($0),t,\((size == 100000 ? slow : 100) + $0),\(size)," }
            }
            return try Self.table(
                header + rows.joined(separator: "\n"), source: source, declaring: [.timeToFirstScreenMilliseconds])
        }
        let rows = try ResultComparison(baseline: table(100, "base"), current: table(300, "current")).rows()
        let screens = rows.filter { $0.metric == "time_to_first_screen_ms" }
        #expect(screens.count == 2, "one row per size, not the two sizes pooled into one cell")
        #expect(screens.first { $0.cell["objects"] == "100000" }?.verdict == .slower)
        #expect(screens.first { $0.cell["objects"] == "1000" }?.verdict == .same)
    }

    @Test("a cell's label leaves out columns the workload leaves empty")
    func labelSkipsEmptyColumns() throws {
        let text =
            "scenario,store,strategy,mode,repetition,run_id,timestamp,time_to_first_frame_ms,error\n"
            + (1...8).map { "s,sqlite,,sync,\($0),r\($0),t,\(20 + Double($0) / 10)," }.joined(separator: "\n")
        let table = try ResultTable(text: text, source: "startup")
        let row = try #require(try ResultComparison(baseline: table, current: table).rows().first)
        #expect(row.cellLabel == "scenario=s store=sqlite mode=sync")
        #expect(row.cell["strategy"] == "" && row.verdict == .same)
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
        #expect(throws: CompareError.badConfidence("lots")) { try ResultComparison.parseConfidence("lots") }
        #expect(throws: CompareError.badConfidence("20%")) { try ResultComparison.parseConfidence("20%") }
        #expect(try ResultComparison.parseConfidence("95%") == 0.95)
        #expect(try ResultComparison.parseConfidence("0.9") == 0.9)
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
        #expect(back.rows.compactMap { back.value("verdict", in: $0) }.filter { $0 == "slower" }.count == 1)
        #expect(
            ComparisonReport.table(rows, threshold: 0.10, confidence: 0.95, paired: false).contains(
                "1 faster, 1 slower, 2 same, 1 unresolved, 0 changed"))
        // The interval's ends are columns, the low one below the estimate and the high one above.
        let slower = try #require(back.rows.first { back.value("verdict", in: $0) == "slower" })
        let (low, ratio, high) = (
            Double(back.value("ratio_low", in: slower) ?? ""), Double(back.value("ratio", in: slower) ?? ""),
            Double(back.value("ratio_high", in: slower) ?? "")
        )
        #expect(try #require(low) < (try #require(ratio)) && (try #require(ratio)) < (try #require(high)))
    }
}
