import Foundation
import LabCore
import Testing

/// A workload whose runs cost a fixed time on a manual clock: `steady` and `twin` the same, `slow` half as much
/// again. Nothing is measured for real, so the budget's rule is tested on exact, repeatable numbers.
private struct CostWorkload: Workload {
    let name = "cost"
    let metrics: [Metric] = []
    let headlineMetrics: [Metric] = [.wallMilliseconds]
    let strategies: [ConcurrencyStrategy] = ["steady", "twin", "slow"].map { ConcurrencyStrategy($0, about: $0) }
    let stores: [StoreKind] = [StoreKind("ledger", isFile: false, about: "nothing stored")]
    let measuresProcessUsage = false
    let clock: ManualClock

    var parameters: [ParameterSpec] {
        [
            ParameterSpec("store", .choice(["ledger"]), default: .text("ledger"), help: "ignored"),
            ParameterSpec("strategy", .choice(strategies.map(\.name)), default: .text("steady"), help: "the cost"),
            ParameterSpec("cost", .integer(minimum: 1), default: .integer(10), help: "ms a run takes"),
        ]
    }

    @MainActor
    func run(_ run: WorkloadRun) async throws -> [Metric: Double] {
        let cost = Double(run.integer("cost")) * (run.strategy == "slow" ? 1.5 : 1)
        let ((), milliseconds) = run.clock.measure { clock.advance(by: cost) }
        return [.wallMilliseconds: milliseconds]
    }
}

@Suite("run --budget: rounds while the budget lasts, a cell stopped only once it is the same as its reference")
struct BudgetRunnerTests {
    static func scenario(_ extra: String, clock: ManualClock) throws -> Scenario {
        try ScenarioFile.parse(
            """
            name: costs
            workload: cost
            repetitions: 2
            \(extra)
            matrix:
              strategy: [steady, twin, slow]
            """, file: URL(fileURLWithPath: "/tests/costs.yaml"),
            workloads: WorkloadRegistry([CostWorkload(clock: clock)]))
    }

    @MainActor
    static func run(_ scenario: Scenario, clock: ManualClock) async throws -> (results: [RunResult], csv: URL) {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("budget-\(UUID().uuidString)")
        var options = ScenarioRunner.Options(outDirectory: out)
        options.clock = clock
        let runner = ScenarioRunner(options: options, progress: ProgressReporter(isTerminal: false) { _ in })
        let results = try await runner.run(runner.prepared(scenario))
        return (results, runner.csvURL(for: scenario))
    }

    static func rounds(_ results: [RunResult], _ strategy: String) -> Int {
        results.filter { $0.cell.parameters["strategy"]?.description == strategy }.count
    }

    @Test("the twin stops once the same (four runs a side at 95%); the slower cell and its reference run to the budget")
    @MainActor
    func stopsOnlyOnSame() async throws {
        let clock = ManualClock()
        // A round costs 10 + 10 + 15 ms; 200 ms leave room for six rounds of all three, less the twin's after four.
        let scenario = try Self.scenario("budget: 0.2s\nmax_repetitions: 10\nreference: strategy=steady", clock: clock)
        #expect(scenario.budget == 0.2 && scenario.mostRepetitions == 10)
        let (results, csv) = try await Self.run(scenario, clock: clock)
        defer { try? FileManager.default.removeItem(at: csv.deletingLastPathComponent()) }
        #expect(Self.rounds(results, "twin") == 4, "same as steady once an interval exists")
        #expect(Self.rounds(results, "slow") == 6, "slower is never a reason to stop")
        #expect(Self.rounds(results, "steady") == 6, "the reference runs while a cell compared with it does")
        #expect(clock.nowMilliseconds() == 190, "the seventh round would have ended past 200 ms")
        // The CSV passes the check with the rounds each cell had, and the sidecar says what the budget was.
        #expect(ResultCheck.problems(in: csv, scenario: scenario).isEmpty)
        let table = try ResultTable(contentsOf: csv)
        #expect(table.environment?.budget == 0.2 && table.environment?.rounds == 6)
        #expect(table.environment?.repetitions == 2 && table.environment?.reference == "strategy=steady")
        // The summary compares each cell with its reference: the twin the same, the slow one slower.
        let summary = SummaryTable.text(results, scenario: scenario)
        #expect(summary.contains("against strategy=steady"))
        let lines = summary.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("slow") && $0.contains("1.5 [1.5–1.5] slower") }, "\(summary)")
        #expect(lines.contains { $0.hasPrefix("twin") && $0.contains("1.0 [1.0–1.0] same") }, "\(summary)")
        // The HTML report gives the same table from the CSV, by the reference its sidecar records.
        let page = try HTMLReport(files: [csv.path], workloads: WorkloadRegistry([CostWorkload(clock: clock)])).render()
        #expect(page.contains("Against strategy=steady: each cell over its twin"))
        #expect(page.contains("<tr class=\"slower\"><td class=\"param\">slow</td><td class=\"param\">wall_ms</td>"))
    }

    @Test("without a budget every cell runs exactly its repetitions; --quick drops the budget")
    @MainActor
    func noBudget() async throws {
        let clock = ManualClock()
        let (results, csv) = try await Self.run(
            try Self.scenario("reference: strategy=steady", clock: clock), clock: clock)
        defer { try? FileManager.default.removeItem(at: csv.deletingLastPathComponent()) }
        #expect(results.count == 6)
        let budgeted = try Self.scenario("budget: 10m", clock: clock)
        #expect(budgeted.quick().budget == nil && budgeted.mostRepetitions == Scenario.defaultMaxRepetitions)
    }

    @Test("without a reference nothing stops early: every cell runs until the budget is spent")
    @MainActor
    func noReference() async throws {
        let clock = ManualClock()
        let (results, csv) = try await Self.run(try Self.scenario("budget: 0.2s", clock: clock), clock: clock)
        defer { try? FileManager.default.removeItem(at: csv.deletingLastPathComponent()) }
        #expect(Self.rounds(results, "twin") == 5 && Self.rounds(results, "slow") == 5)
    }

    @Test("bad budget keys name the file, the line and what is expected")
    func badKeys() throws {
        let clock = ManualClock()
        let cases: [(String, String)] = [
            ("budget: ten minutes", "costs.yaml:4: budget is 'ten minutes'; expected a time such as 10m"),
            (
                "max_repetitions: 5",
                "costs.yaml:4: max_repetitions caps the rounds a budget adds; expected it only with"
            ),
            (
                "budget: 1m\nmax_repetitions: 1",
                "costs.yaml:5: max_repetitions is 1; expected an integer ≥ repetitions (2)"
            ),
            ("reference: store=ledger", "reference store=ledger: store is not a matrix list of scenario 'costs'"),
            ("reference: strategy=fast", "strategy has no value 'fast'; expected one of steady, twin, slow"),
            ("reference: strategy", "reference is 'strategy'; expected a matrix list and one of its values"),
        ]
        for (extra, message) in cases {
            #expect {
                try Self.scenario(extra, clock: clock)
            } throws: { error in
                "\(error)".contains(message)
            }
        }
    }

    @Test("a budget reads as seconds, minutes, hours or a sum of them, and is written back the same way")
    func budgetTimes() {
        #expect(Scenario.budgetSeconds("90") == 90 && Scenario.budgetSeconds("90s") == 90)
        #expect(Scenario.budgetSeconds("10m") == 600 && Scenario.budgetSeconds("1h") == 3600)
        #expect(Scenario.budgetSeconds("1m30s") == 90)
        for bad in ["", "0", "-5m", "1m30", "ten", "5d"] { #expect(Scenario.budgetSeconds(bad) == nil, "\(bad)") }
        #expect(Scenario.budgetText(600) == "10m" && Scenario.budgetText(90) == "1m30s")
    }
}
