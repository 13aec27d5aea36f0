import Foundation
import Synchronization
import Testing

@testable import LabCore

/// What happened, in order: the pace's calls and the runs between them.
private final class TurnLog: Sendable {
    let entries = Mutex<[String]>([])

    func append(_ entry: String) { entries.withLock { $0.append(entry) } }
}

/// A workload that records the order its runs ran in, each run's cell and repetition.
private struct TurnWorkload: Workload {
    let name = "turns"
    let stores: [StoreKind] = []
    let metrics: [Metric] = []
    let headlineMetrics: [Metric] = []
    let measuresProcessUsage = false
    let log: TurnLog

    var parameters: [ParameterSpec] {
        [ParameterSpec("size", .integer(minimum: 1), default: .integer(1), help: "a size")]
    }

    @MainActor
    func run(_ run: WorkloadRun) async throws -> [Metric: Double] {
        log.append("run size=\(run.integer("size"))")
        return [.wallMilliseconds: 1]
    }
}

@Suite("compare --paired's runner: the scenario each build runs, and the sides' CSVs")
struct PairedBuildRunnerTests {
    @Test("the copy drops the keys that set rounds and comparisons and makes a relative model path absolute")
    func scenarioForRounds() {
        let text = """
            # header
            name: x
            model: models/App.xcdatamodeld
            repetitions: 3
            budget: 10m
            max_repetitions: 8
            reference: strategy=shared-coordinator
            matrix:
              strategy: [a, b]
            """
        let copy = PairedBuildRunner.scenarioForRounds(text, directory: URL(fileURLWithPath: "/repo/Scenarios"))
        #expect(!copy.contains("budget") && !copy.contains("max_repetitions") && !copy.contains("reference"))
        #expect(copy.contains("model: \"/repo/Scenarios/models/App.xcdatamodeld\""))
        #expect(copy.contains("repetitions: 3") && copy.contains("# header") && copy.contains("  strategy: [a, b]"))
        let builtin = PairedBuildRunner.scenarioForRounds("model: builtin:pods\n", directory: URL(fileURLWithPath: "/"))
        #expect(builtin == "model: builtin:pods\n")
    }

    @Test("each side's rounds join into one CSV, the repetition and run id renumbered by round, the rounds recorded")
    func join() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("paired-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let header = "scenario,workload,store,strategy,repetition,run_id,timestamp,wall_ms,error\n"
        var rounds: [URL] = []
        for round in 1...3 {
            let url = folder.appendingPathComponent("round-\(round).csv")
            let rows = "s,w,a,one,1,c1r1,t,\(100 + round),\ns,w,a,two,1,c2r1,t,\(200 + round),\n"
            try Data((header + rows).utf8).write(to: url)
            var record = EnvironmentRecord.reconstructed(
                for: try ResultTable(contentsOf: url), workload: "w", command: ["run"])
            record.metrics = [.wallMilliseconds]
            try record.write(to: EnvironmentRecord.sidecar(of: url))
            rounds.append(url)
        }
        let side = folder.appendingPathComponent("base.csv")
        try PairedBuildRunner.join(rounds, into: side)
        let table = try ResultTable(contentsOf: side)
        #expect(
            table.rows.compactMap { table.value("run_id", in: $0) } == ["c1r1", "c2r1", "c1r2", "c2r2", "c1r3", "c2r3"])
        #expect(table.rows.compactMap { table.value("repetition", in: $0) } == ["1", "1", "2", "2", "3", "3"])
        #expect(table.environment?.repetitions == 3 && table.environment?.rounds == 3)
        #expect(table.declarations["wall_ms"] != nil, "the first round's declarations")
    }

    @Test("a paced run waits for its turn before every run, warm-ups first, and says when each is done")
    @MainActor
    func pacedRuns() async throws {
        let log = TurnLog()
        let workload = TurnWorkload(log: log)
        let scenario = try ScenarioFile.parse(
            """
            name: turns
            workload: turns
            repetitions: 2
            warmup: 1
            matrix:
              size: [1, 2]
            """, file: URL(fileURLWithPath: "/tests/turns.yaml"), workloads: WorkloadRegistry([workload]))
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("paced-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        var options = ScenarioRunner.Options(outDirectory: out)
        options.pace = RunPace(
            waitForTurn: { id in log.append("ready \(id)") },
            turnDone: { id in log.append("done \(id)") })
        let runner = ScenarioRunner(options: options, progress: ProgressReporter(isTerminal: false) { _ in })
        let results = try await runner.run(scenario)
        #expect(results.count == 4)
        var expected: [String] = []
        for (cell, repetition) in [(1, 0), (2, 0), (1, 1), (2, 1), (1, 2), (2, 2)] {
            expected += ["ready c\(cell)r\(repetition)", "run size=\(cell)", "done c\(cell)r\(repetition)"]
        }
        #expect(log.entries.withLock { $0 } == expected)
    }

    @Test("a run id names its cell and repetition, and only a ready line has one")
    func runIDs() {
        #expect(RunResult.parseRunID("c12r3")! == (cell: 12, repetition: 3))
        #expect(RunResult.parseRunID(RunResult.runID(cell: 4, repetition: 0))! == (cell: 4, repetition: 0))
        #expect(RunResult.parseRunID("c4") == nil)
        #expect(RunResult.parseRunID("x4r1") == nil)
        #expect(PairedBuildRunner.readyID("ready c4r0") == "c4r0")
        #expect(PairedBuildRunner.readyID("done c4r0") == nil)
    }

    @Test("a program without run --paced is not taken for a build that has it")
    func pacedProbe() {
        #expect(!PairedBuildRunner.takesPacedRuns(URL(fileURLWithPath: "/usr/bin/true")))
        #expect(!PairedBuildRunner.takesPacedRuns(URL(fileURLWithPath: "/nonexistent/stacklab")))
    }
}
