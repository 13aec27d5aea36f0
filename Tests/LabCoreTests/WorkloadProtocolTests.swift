import Foundation
import LabCore
import Testing

/// A metric no other workload has: declared here, beside the workload that measures it, and nowhere in LabCore.
extension Metric {
    static let tickDrift = Metric(
        "tick_drift_ms", unit: .milliseconds, polarity: .lowerIsBetter, group: "ticks",
        about: "how far the clock moved beyond the ticks asked for")
}

/// Concurrency strategies no other workload has, declared the same way.
extension ConcurrencyStrategy {
    static let tick = ConcurrencyStrategy("tick", color: "#123456", about: "advance the clock as asked")
    static let tock = ConcurrencyStrategy("tock", about: "advance it one tick more: a drift")
}

/// A store no other workload has, declared the same way: the lab core knows stores only by declarations.
extension StoreKind {
    static let clockFace = StoreKind("clock-face", isFile: false, about: "nothing stored: the ticks are read off")
}

/// A workload that only reads the clock it is given: the runner's contract with every workload, with no store.
private struct TickWorkload: Workload {
    let name = "tick"
    let metrics: [Metric] = [.objects, .merges, .tickDrift]
    let headlineMetrics: [Metric] = [.wallMilliseconds, .tickDrift]
    let strategies: [ConcurrencyStrategy] = [.tick, .tock]
    let stores: [StoreKind] = [.clockFace]
    let measuresProcessUsage = false
    let clock: ManualClock

    var parameters: [ParameterSpec] {
        [
            ParameterSpec("store", .choice(stores.map(\.name)), default: .text("clock-face"), help: "ignored"),
            ParameterSpec("strategy", .choice(strategies.map(\.name)), default: .text("tick"), help: "the strategy"),
            ParameterSpec(
                "ticks", .integer(minimum: 0), default: .integer(1), quick: .integer(2), help: "ms to advance"),
        ]
    }

    /// Odd tick counts only: the runner must leave the other cells out.
    func accepts(_ parameters: [String: ScenarioValue]) -> Bool {
        (parameters["ticks"]?.integerValue ?? 0) % 2 == 1
    }

    @MainActor
    func run(_ run: WorkloadRun) async throws -> [Metric: Double] {
        if run.integer("ticks") == 13 { throw LabError(.workloadFailed, "unlucky") }
        let drift = run.strategy == ConcurrencyStrategy.tock.name ? 1.0 : 0
        let ((), milliseconds) = run.clock.measure { clock.advance(by: Double(run.integer("ticks")) + drift) }
        return [.wallMilliseconds: milliseconds, .objects: Double(run.integer("ticks")), .tickDrift: drift]
    }

    /// Marks every result, so the test sees the runner called it once the runs were done.
    func finish(_ results: inout [RunResult]) {
        for index in results.indices { results[index].metrics[.merges] = Double(results.count) }
    }
}

@Suite("Workload protocol: the runner knows workloads only through it")
struct WorkloadProtocolTests {
    @Test("a registered workload runs from a scenario file: its cells, its clock, its failures, its finish")
    @MainActor
    func customWorkload() async throws {
        let clock = ManualClock(start: 1_000)
        let registry = WorkloadRegistry([TickWorkload(clock: clock)])
        let scenario = try ScenarioFile.parse(
            """
            name: ticks
            workload: tick
            repetitions: 2
            matrix:
              ticks: [1, 2, 3, 13]
            """, file: URL(fileURLWithPath: "/tests/ticks.yaml"), workloads: registry)
        #expect(scenario.cells().map(\.index) == [1, 3, 4], "cell 2 (2 ticks) is not accepted")

        let out = FileManager.default.temporaryDirectory.appendingPathComponent("ticks-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        var options = ScenarioRunner.Options(outDirectory: out)
        options.clock = clock
        let runner = ScenarioRunner(options: options, progress: ProgressReporter(isTerminal: false) { _ in })
        let results = try await runner.run(scenario)

        #expect(
            results.map(\.runID) == ["c1r1", "c3r1", "c4r1", "c1r2", "c3r2", "c4r2"], "cells interleaved per repetition"
        )
        #expect(results.map { $0.metrics[.wallMilliseconds] } == [1, 3, nil, 1, 3, nil])
        #expect(results.filter { $0.error != nil }.map(\.error) == ["unlucky", "unlucky"])
        #expect(results.allSatisfy { $0.metrics[.merges] == 6 }, "finish saw all six results")
        #expect(clock.nowMilliseconds() == 1_008)
        #expect(results.allSatisfy { $0.workload == "tick" })

        let csv = try String(contentsOf: runner.csvURL(for: scenario), encoding: .utf8)
        let header = try #require(ResultCSV.parse(csv).first)
        #expect(
            Array(header.prefix(8)) == [
                "scenario", "workload", "store", "strategy", "ticks", "repetition", "run_id", "timestamp",
            ])
    }

    @Test("a metric and a strategy the workload declares reach the CSV, its sidecar, compare and the summary")
    @MainActor
    func declaredMetricAndDesign() async throws {
        let clock = ManualClock()
        let registry = WorkloadRegistry([TickWorkload(clock: clock)])
        let scenario = try ScenarioFile.parse(
            """
            name: drift
            workload: tick
            repetitions: 4
            matrix:
              strategy: [tick, tock]
            """, file: URL(fileURLWithPath: "/tests/drift.yaml"), workloads: registry)
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("drift-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        var options = ScenarioRunner.Options(outDirectory: out)
        options.clock = clock
        let runner = ScenarioRunner(options: options, progress: ProgressReporter(isTerminal: false) { _ in })
        let results = try await runner.run(scenario)
        #expect(results.map { $0.metrics[.tickDrift] } == [0, 1, 0, 1, 0, 1, 0, 1])

        // The CSV has the workload's own column; the sidecar declares it and the strategies.
        let url = runner.csvURL(for: scenario)
        let table = try ResultTable(contentsOf: url)
        #expect(table.metricColumns == ["wall_ms", "cpu_ms", "peak_rss_mb", "objects", "merges", "tick_drift_ms"])
        let declared = try #require(table.declarations["tick_drift_ms"])
        #expect(declared.polarity == .lowerIsBetter && declared.group == "ticks" && declared.unit == .milliseconds)
        #expect(table.environment?.strategies == [.tick, .tock])
        #expect(table.environment?.strategies?.first?.color == "#123456")
        #expect(SummaryTable.text(results, scenario: scenario).contains("tick_drift_ms"), "a headline metric")

        // Compare judges the column by its declaration: the drifting strategy regressed against the steady one.
        let steady = try ResultTable(
            text: ResultCSV.render([table.columns] + table.rows.filter { table.value("strategy", in: $0) == "tick" }),
            source: "steady")
        let drifting = try ResultTable(
            text: ResultCSV.render(
                [table.columns]
                    + table.rows.filter { table.value("strategy", in: $0) == "tock" }.map { row in
                        row.enumerated().map { table.columns[$0] == "strategy" ? "tick" : $1 }
                    }),
            source: "drifting")
        var base = steady
        base.environment = table.environment
        let rows = try ResultComparison(baseline: base, current: drifting, metrics: ["tick_drift_ms"]).rows()
        #expect(rows.map(\.verdict) == [.slower])

        // A strategy the workload does not declare is refused, naming the ones it does.
        #expect {
            try ScenarioFile.parse(
                "name: x\nworkload: tick\nparameters: {strategy: tuck}\n", file: URL(fileURLWithPath: "/t.yaml"),
                workloads: registry)
        } throws: { error in
            "\(error)".contains("expected one of tick, tock")
        }
    }

    @Test("a scenario naming a workload the registry lacks is refused, naming the ones it has")
    func unknownWorkload() {
        let registry = WorkloadRegistry([TickWorkload(clock: ManualClock())])
        #expect {
            try ScenarioFile.parse(
                "name: x\nworkload: import\n", file: URL(fileURLWithPath: "/t.yaml"), workloads: registry)
        } throws: { error in
            "\(error)" == "/t.yaml:2: unknown workload 'import'; expected one of tick"
        }
    }

    @Test("a scenario naming a workload another program runs is refused, naming that program")
    func workloadElsewhere() {
        let registry = WorkloadRegistry([TickWorkload(clock: ManualClock())]).referring(["tock", "tick"], to: "ticker")
        #expect(registry.elsewhere == ["tock": "ticker"], "a workload it holds is not elsewhere")
        #expect {
            try ScenarioFile.parse(
                "name: x\nworkload: tock\n", file: URL(fileURLWithPath: "/t.yaml"), workloads: registry)
        } throws: { error in
            (error as? LabError)?.code == .otherProgram
                && "\(error)" == "/t.yaml:2: workload 'tock' is run by ticker, not by this program: "
                    + "swift run -c release ticker run /t.yaml"
        }
    }
}
