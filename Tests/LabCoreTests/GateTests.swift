import Foundation
import LabCore
import Testing

/// `stacklab gate`, the startup gate's verdict, against the SciPy script it replaced (`scripts/gate_pool.py`): on
/// four gate trials recorded for it (two with the current side slowed down 10% by the test hook, two
/// unchanged; `Fixtures/gate/trial-N-*.csv`, the CSVs scripts/startup-gate.sh assembles), the same pairs, pooled
/// change and p-value per metric, and so the same verdict (`trials-scipy.json`, the script's output).
@Suite("stacklab gate: the startup gate's pooled verdict")
struct GateTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/gate")

    struct Golden: Decodable {
        struct Verdict: Decodable, CustomTestStringConvertible {
            let trial: String
            let inject: String
            let metric: String
            let pairs: Int
            let change: Double
            let p: Double
            let regressed: Bool
            var testDescription: String { "\(trial) \(metric)" }
        }
        let verdicts: [Verdict]
    }

    static let golden: [Golden.Verdict] = {
        // The fixture is part of the test target's sources: a failure to read it is a broken checkout.
        try! JSONDecoder().decode(
            Golden.self, from: Data(contentsOf: folder.appendingPathComponent("trials-scipy.json"))
        ).verdicts
    }()

    static func table(_ trial: String, _ side: String) throws -> ResultTable {
        try ResultTable(contentsOf: folder.appendingPathComponent("\(trial)-\(side).csv"))
    }

    @Test("each recorded trial's pooled verdict is the SciPy script's: pairs, change, p", arguments: golden)
    func matchesGatePool(_ expected: Golden.Verdict) throws {
        let gate = try PooledComparison(
            baseline: Self.table(expected.trial, "base"), current: Self.table(expected.trial, "current"),
            metrics: [expected.metric])
        let row = try #require(try gate.rows().first)
        #expect(row.pairs == expected.pairs)
        #expect(abs(row.change - expected.change) < 1e-12)
        #expect(abs(row.pValue - expected.p) <= 1e-9, "p \(row.pValue), SciPy \(expected.p)")
        #expect(row.regressed == expected.regressed)
    }

    @Test("the trials' verdicts: every slowed-down one caught on the CPU time, no unchanged one called slower")
    func trialsVerdicts() {
        let cpu = Self.golden.filter { $0.metric == "cpu_ms" }
        #expect(cpu.count == 4)
        for verdict in cpu { #expect(verdict.regressed == (verdict.inject != "0"), "\(verdict.trial)") }
        #expect(Self.golden.filter { $0.inject == "0" }.allSatisfy { !$0.regressed })
    }

    @Test("a launch the watchdog kills that it did not kill before fails the gate, whatever the pooled times")
    func watchdogPerCell() throws {
        let base = try Self.table("trial-2", "base")
        var rows = base.rows
        let killed = try #require(base.columns.firstIndex(of: "killed_by_watchdog"))
        let store = try #require(base.columns.firstIndex(of: "store"))
        let mode = try #require(base.columns.firstIndex(of: "mode"))
        for index in rows.indices where rows[index][store] == "lmdb" && rows[index][mode] == "sync" {
            rows[index][killed] = "true"
        }
        var current = try ResultTable(text: ResultCSV.render([base.columns] + rows), source: "killed")
        current.environment = base.environment
        let cells = try ResultComparison(
            baseline: base, current: current, metrics: ["killed_by_watchdog"], pairing: .paired
        ).rows()
        #expect(cells.filter { $0.verdict == .slower }.count == 2, "lmdb sync, with and without a migration")
        #expect(cells.filter { $0.verdict == .same }.count == cells.count - 2, "no other cell's launches changed")
    }

    @Test(
        "the pooled 95% interval tells the recorded slowdowns from the unchanged trials on the CPU time, as the rule does",
        arguments: ["trial-1", "trial-2", "trial-3", "trial-4"])
    func pooledIntervals(_ trial: String) throws {
        let gate = try PooledComparison(
            baseline: Self.table(trial, "base"), current: Self.table(trial, "current"), metrics: ["cpu_ms"])
        let row = try #require(try gate.rows().first)
        let slowed = ["trial-1", "trial-3"].contains(trial)
        #expect(row.pairs == 80 && row.comparison.baseCount == 80)
        // Slowed down 10%: the whole interval lies beyond +5%; unchanged: never slower.
        #expect((row.comparison.verdict == .slower) == slowed, "\(row.comparison)")
        let interval = try #require(row.comparison.interval)
        #expect(interval.contains(1 + row.change), "the gate's median change lies inside the interval")
        #expect(row.comparison.pairing == .paired)
    }

    @Test("the committed trial log's verdicts follow the gate's rule on its recorded changes and p-values")
    func committedTrialLog() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("results/startup-gate-trials.csv")
        let log = try ResultTable(contentsOf: url)
        #expect(log.rows.count == 20)
        for row in log.rows {
            let regressed = ["cpu", "first_frame", "first_screen"].contains { metric in
                PooledComparison.isRegression(
                    change: (Double(log.value("\(metric)_change_pct", in: row) ?? "") ?? 0) / 100,
                    pValue: Double(log.value("\(metric)_p", in: row) ?? "") ?? 1, threshold: 0.05, alpha: 0.01)
            }
            let watchdog = (Int(log.value("watchdog_regressions", in: row) ?? "") ?? 0) > 0
            #expect((regressed || watchdog) == (log.value("gate_exit", in: row) == "1"), "\(row)")
        }
    }
}
