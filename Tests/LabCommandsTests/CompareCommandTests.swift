import Foundation
import LabCore
import TestSupport
import Testing

/// `stacklab compare` as a command: its exit statuses on LabCoreTests' comparison fixtures.
@Suite("stacklab compare")
struct CompareCommandTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("LabCoreTests/Fixtures/compare")

    @Test("stacklab compare exits 1 when a cell is slower, 0 without one, 2 on bad input")
    func exitStatus() throws {
        let baseline = CompareCommandTests.fixtures.appendingPathComponent("baseline.csv").path
        let current = CompareCommandTests.fixtures.appendingPathComponent("current.csv").path
        let regressed = try StackLabBinary.run(["compare", baseline, current])
        #expect(regressed.status == 1)
        #expect(regressed.output.contains("slower"))
        #expect(try StackLabBinary.run(["compare", baseline, current, "--metric", "objects_per_s"]).status == 0)
        #expect(try StackLabBinary.run(["compare", baseline, baseline]).status == 0)
        let missing = try StackLabBinary.run(["compare", baseline, "/nonexistent/current.csv"])
        #expect(missing.status == 2)
        #expect(missing.output.contains("/nonexistent/current.csv"))
        #expect(try StackLabBinary.run(["compare", baseline, current, "--threshold", "lots"]).status == 2)
        #expect(try StackLabBinary.run(["compare", baseline]).status == 2)
    }

    static let gate = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("LabCoreTests/Fixtures/gate")

    @Test(
        "compare --paired on two CSVs of paired runs: per cell pair by pair, pooled over every cell, exit 1 when pooled slower"
    )
    func pairedFiles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("paired-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func paired(_ trial: String) throws -> (status: Int32, output: String) {
            try StackLabBinary.run([
                "compare", "--paired", Self.gate.appendingPathComponent("\(trial)-base.csv").path,
                Self.gate.appendingPathComponent("\(trial)-current.csv").path, "--threshold", "5%", "--pool", "cpu_ms",
                "--metric", "cpu_ms", "--out", folder.appendingPathComponent("\(trial).csv").path,
                "--pooled-out", folder.appendingPathComponent("\(trial)-pooled.csv").path,
            ])
        }
        // The recorded 10% slowdown: the pooled CPU time's whole interval lies beyond +5%.
        let slowed = try paired("trial-1")
        #expect(slowed.status == 1, "\(slowed.output)")
        #expect(slowed.output.contains("pooled over every cell") && slowed.output.contains("paired runs"))
        let pooled = try #require(
            slowed.output.split(separator: "\n").first { $0.hasPrefix("pooled over every cell  cpu_ms") })
        #expect(pooled.contains("slower"))
        let unchanged = try paired("trial-2")
        #expect(unchanged.status == 0, "\(unchanged.output)")
        // The pooled rows as CSV, as a build-running compare writes them: one per pooled metric, with its verdict.
        for (trial, verdict) in [("trial-1", "slower"), ("trial-2", "unresolved")] {
            let text = try String(contentsOf: folder.appendingPathComponent("\(trial)-pooled.csv"), encoding: .utf8)
            let lines = text.split(separator: "\n").map {
                $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            }
            let header = try #require(lines.first)
            let metric = try #require(header.firstIndex(of: "metric"))
            let column = try #require(header.firstIndex(of: "verdict"))
            #expect(lines.count == 2 && lines[1][metric] == "cpu_ms" && lines[1][column] == verdict, "\(lines)")
        }
        #expect(try StackLabBinary.run(["compare", "a.csv", "b.csv", "--pooled-out", "p.csv"]).status == 2)
        // The per-cell CSV and its sidecar, which declares the interval's columns.
        let table = try ResultTable(contentsOf: folder.appendingPathComponent("trial-1.csv"))
        #expect(table.rows.allSatisfy { table.value("paired", in: $0) == "true" })
        #expect(table.declarations["ratio_low"]?.unit == .ratio && table.declarations["same_within_pct"] != nil)
        #expect(table.metricColumns.contains("ratio_high") && !table.metricColumns.contains("verdict"))
    }

    @Test("compare --within: each cell against its twin in one run, exit 0 however they differ")
    func within() throws {
        let run = Self.fixtures.appendingPathComponent("current.csv").path
        let result = try StackLabBinary.run(["compare", "--within", "store=sqlite", run, "--metric", "objects_per_s"])
        #expect(result.status == 0, "\(result.output)")
        // memory's throughput is five times sqlite's in every run: far beyond the band.
        let memory = try #require(result.output.split(separator: "\n").first { $0.contains("store=memory") })
        #expect(memory.contains("faster"))
        #expect(!result.output.contains("store=sqlite "), "the reference cells are not compared with themselves")
        #expect(try StackLabBinary.run(["compare", "--within", "store=tape", run]).status == 2)
        #expect(try StackLabBinary.run(["compare", "--within", "store", run]).status == 2)
        #expect(try StackLabBinary.run(["compare", "--within", "store=sqlite", run, run]).status == 2)
    }

    @Test(
        "compare --paired with two builds pairs them cell by cell or round by round, writing both sides and verdicts",
        arguments: ["cell", "round"])
    func pairedBuilds(interleave: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("builds-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let binary = StackLabBinary.url.path
        let scenario = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Golden/golden.yaml").path
        let result = try StackLabBinary.run([
            "compare", "--paired", binary, binary, scenario, "--rounds", "2", "--quick", "--runs", folder.path,
            "--interleave", interleave,
        ])
        // Two rounds are two pairs a cell, too few for any interval: unresolved, so nothing slower.
        #expect(result.status == 0, "\(result.output)")
        let runs = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("runs").path)
        if interleave == "cell" {
            // One process a build, taking turns run by run; golden.yaml's two cells, the first to go alternating.
            #expect(Set(runs) == ["base", "current"])
            let lines = result.output.split(separator: "\n").filter { $0.contains("compare: round") }
            #expect(lines.count == 8, "\(lines)")
            #expect(lines.first?.contains("round 1/2, cell 1: current") == true, "\(lines)")
            #expect(lines.count > 2 && lines[2].contains("round 1/2, cell 2: base"), "\(lines)")
            #expect(result.output.contains("round 2/2, cell 2: current"))
        } else {
            #expect(result.output.contains("round 2/2: current") && result.output.contains("round 2/2: base"))
            #expect(Set(runs) == ["base-1", "base-2", "current-1", "current-2"])
        }
        for file in ["base.csv", "current.csv", "comparison.csv", "comparison.env.json", "pooled.csv"] {
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(file).path), "\(file)")
        }
        let base = try ResultTable(contentsOf: folder.appendingPathComponent("base.csv"))
        #expect(base.rows.compactMap { base.value("repetition", in: $0) }.sorted() == ["1", "1", "2", "2"])
        #expect(
            Set(base.rows.compactMap { base.value("strategy", in: $0) }) == ["shared-coordinator", "nested-contexts"])
        let comparison = try ResultTable(contentsOf: folder.appendingPathComponent("comparison.csv"))
        #expect(comparison.rows.contains { comparison.value("metric", in: $0) == "wall_ms" })
        let missing = try StackLabBinary.run(["compare", "--paired", "/nonexistent/stacklab", binary, scenario])
        #expect(missing.status == 2 && missing.output.contains("/nonexistent/stacklab"))
        #expect(try StackLabBinary.run(["compare", "--paired", binary, binary, scenario, "--rounds", "0"]).status == 2)
    }
}
