import Foundation
import LabCore
import Testing

/// Sidecars written before the lab said "strategy" and listed its engines: they still read, and a sidecar written
/// now uses the new keys only.
@Suite("Sidecars from before: designs and fixed engine keys")
struct LegacySidecarTests {
    static let legacy = """
        {"scenario": "designs", "workload": "import", "model": "builtin:pods", "quick": false, "repetitions": 3,
         "warmup": 0, "parameters": {}, "command": [], "git_commit": "6d90a59", "host": "vm", "cores": 2,
         "memory_bytes": 0, "os": "Linux", "swift": "6.3", "sqlite": "3.40.1", "lmdb": "0.9.24",
         "started": "2026-11-27T16:55:03Z", "finished": "2026-11-27T17:03:03Z", "peak_memory_per_run": true,
         "designs": [{"name": "shared-coordinator", "about": "one coordinator", "color": "#1f77b4"}]}
        """

    static func decode(_ text: String) throws -> EnvironmentRecord {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(EnvironmentRecord.self, from: Data(text.utf8))
    }

    @Test("a sidecar's designs read as its concurrency strategies, its sqlite and lmdb keys as its engines")
    func readsLegacyKeys() throws {
        let record = try Self.decode(Self.legacy)
        #expect(record.strategies?.map(\.name) == ["shared-coordinator"])
        #expect(record.strategies?.first?.color == "#1f77b4")
        #expect(record.engines == [EngineVersion("SQLite", "3.40.1"), EngineVersion("LMDB", "0.9.24")])
    }

    @Test("a sidecar written now says strategies and engines, and reads back the same")
    func writesNewKeys() throws {
        var record = try Self.decode(Self.legacy)
        record.engines = [EngineVersion("SQLite", "3.46.0")]
        record.strategies = [ConcurrencyStrategy("separate-stacks")]
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sidecar-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: url) }
        try record.write(to: url)
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        #expect(json["strategies"] != nil && json["engines"] != nil)
        #expect(json["designs"] == nil && json["sqlite"] == nil && json["lmdb"] == nil)
        let read = try EnvironmentRecord.read(from: url)
        #expect(read.strategies == [ConcurrencyStrategy("separate-stacks")])
        #expect(read.engines == [EngineVersion("SQLite", "3.46.0")])
    }
}
