import Foundation
import Testing

@testable import LabCore

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
}
