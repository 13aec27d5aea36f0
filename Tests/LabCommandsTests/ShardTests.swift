import Foundation
import LabWorkloads
import TestSupport
import Testing

/// `run --shard K/N` and `merge`: shards partition the matrix, the same way every time, and merge joins only
/// a complete set of shards of one scenario and commit.
@Suite("Sharded runs and merge")
struct ShardTests {
    /// A scenario of three small cells in memory, two repetitions each, written to a fresh folder.
    static func scenarioFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shard-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let yaml = """
            name: sharded
            workload: save-chain
            model: builtin:pods
            repetitions: 2
            warmup: 0
            parameters:
              store: memory
              strategy: shared-coordinator
              saves: 1
            matrix:
              objects: [10, 20, 30]

            """
        try Data(yaml.utf8).write(to: folder.appendingPathComponent("sharded.yaml"))
        return folder
    }

    /// Runs shard `shard` of the folder's scenario into `folder/shard-K`; returns the CSV's path.
    static func runShard(_ shard: String, in folder: URL) throws -> String {
        let out = folder.appendingPathComponent("shard-" + shard.replacingOccurrences(of: "/", with: "of"))
        let result = try StackLabBinary.run([
            "run", folder.appendingPathComponent("sharded.yaml").path, "--shard", shard, "--out", out.path,
        ])
        #expect(result.status == 0, "\(result.output)")
        return out.appendingPathComponent("sharded.csv").path
    }

    static func objectsColumn(_ path: String) throws -> [String] {
        let table = try ResultTable(contentsOf: URL(fileURLWithPath: path))
        let index = try #require(table.columns.firstIndex(of: "objects"))
        return table.rows.map { $0[index] }
    }

    @Test("Two shards run disjoint cells, and merge joins them into the whole matrix with a sidecar")
    func mergeComplete() throws {
        let folder = try Self.scenarioFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try Self.runShard("1/2", in: folder)
        let second = try Self.runShard("2/2", in: folder)
        #expect(Set(try Self.objectsColumn(first)) == ["10", "30"])
        #expect(Set(try Self.objectsColumn(second)) == ["20"])
        let sidecar = try String(
            contentsOf: URL(fileURLWithPath: first).deletingPathExtension().appendingPathExtension("env.json"),
            encoding: .utf8)
        #expect(sidecar.contains("\"shard\" : \"1\\/2\"") || sidecar.contains("\"shard\" : \"1/2\""))
        let merged = folder.appendingPathComponent("all/sharded.csv").path
        let result = try StackLabBinary.run(["merge", second, first, "--out", merged])
        #expect(result.status == 0, "\(result.output)")
        #expect(try Self.objectsColumn(merged).sorted() == ["10", "10", "20", "20", "30", "30"])
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("all/sharded.env.json").path))
    }

    @Test("merge refuses a shard given twice, a missing shard, and shards of different commits (exit 2)")
    func mergeRefuses() throws {
        let folder = try Self.scenarioFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try Self.runShard("1/2", in: folder)
        let second = try Self.runShard("2/2", in: folder)
        let out = folder.appendingPathComponent("all/sharded.csv").path

        let twice = try StackLabBinary.run(["merge", first, first, second, "--out", out])
        #expect(twice.status == 2)
        #expect(twice.output.contains("shard 1/2 again"), "\(twice.output)")

        let missing = try StackLabBinary.run(["merge", first, "--out", out])
        #expect(missing.status == 2)
        #expect(missing.output.contains("shard(s) 2/2 missing"), "\(missing.output)")
        #expect(!FileManager.default.fileExists(atPath: out), "nothing is written on bad input")

        let sidecar = URL(fileURLWithPath: second).deletingPathExtension().appendingPathExtension("env.json")
        var json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: sidecar)) as? [String: Any])
        json["git_commit"] = "0000000000000000000000000000000000000000"
        try JSONSerialization.data(withJSONObject: json).write(to: sidecar)
        let commits = try StackLabBinary.run(["merge", first, second, "--out", out])
        #expect(commits.status == 2)
        #expect(commits.output.contains("the commit is 0000000"), "\(commits.output)")
    }

    @Test("merge refuses the same cell and repetition in two shards")
    func mergeRefusesDuplicateRuns() throws {
        let folder = try Self.scenarioFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try Self.runShard("1/2", in: folder)
        let second = try Self.runShard("2/2", in: folder)
        // Shard 2's CSV with one of shard 1's rows appended: a cell run on two machines.
        let extra = try String(contentsOfFile: first, encoding: .utf8).split(separator: "\n")[1]
        let text = try String(contentsOfFile: second, encoding: .utf8)
        try Data((text + extra + "\n").utf8).write(to: URL(fileURLWithPath: second))
        let result = try StackLabBinary.run([
            "merge", first, second, "--out", folder.appendingPathComponent("m.csv").path,
        ])
        #expect(result.status == 2)
        #expect(result.output.contains("objects=10 repetition 1 is also in"), "\(result.output)")
    }
}
