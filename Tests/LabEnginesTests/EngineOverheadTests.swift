import CRawEngines
import Foundation
import LabWorkloads
import ObjectStack
import ObjectStackLMDB
import ObjectStackSQLite
import Testing

@testable import LabEngines

@Suite("Engine overhead: ObjectStack, raw engines and GRDB side by side")
struct EngineOverheadTests {
    @MainActor
    func run(_ text: String) async throws -> (Scenario, [RunResult], String) {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("overhead-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let scenario = try ScenarioFile.parse(
            text, file: URL(fileURLWithPath: "/tests/overhead.yaml"), workloads: .engines)
        let runner = ScenarioRunner(
            options: .init(outDirectory: out), progress: ProgressReporter(isTerminal: false) { _ in })
        let results = try await runner.run(runner.prepared(scenario))
        let csv = try String(contentsOf: runner.csvURL(for: scenario), encoding: .utf8)
        #expect(ResultCheck.problems(in: runner.csvURL(for: scenario), scenario: runner.prepared(scenario)).isEmpty)
        return (scenario, results, csv)
    }

    @Test("every operation runs on every implementation that has it, reads back what it wrote, and gets a ratio")
    @MainActor
    func matrix() async throws {
        let (_, results, csv) = try await run(
            """
            name: overhead
            workload: engine-overhead
            repetitions: 2
            parameters: {samples: 2, lookups: 40, changes: 30}
            matrix:
              store: [sqlite, lmdb]
              objects: [120]
              operation: [insert, fetch-all, fetch-by-id, fetch-sorted, update, count, merge]
              implementation: [objectstack, raw, grdb]
            """)
        for result in results { #expect(result.error == nil, "\(result.cell.label): \(result.error ?? "")") }
        // 6 operations × 3 implementations on SQLite, × 2 on LMDB, + merge for ObjectStack on each: 32 cells.
        #expect(results.count == 32 * 2)
        let cells = Set(results.map { $0.cell.parameters.mapValues(\.description) })
        #expect(!cells.contains { $0["store"] == "lmdb" && $0["implementation"] == "grdb" }, "GRDB is SQLite only")
        #expect(!cells.contains { $0["operation"] == "merge" && $0["implementation"] != "objectstack" })
        for result in results {
            let parameters = result.cell.parameters.mapValues(\.description)
            #expect(result.cell.parameters["objects"] == .integer(120))
            #expect((result.metrics[.medianMilliseconds] ?? 0) > 0)
            switch (parameters["implementation"], parameters["operation"]) {
            case (_, "merge"): #expect(result.metrics[.ratioVsRaw] == nil)
            case ("raw", _): #expect(result.metrics[.ratioVsRaw] == 1)
            default: #expect((result.metrics[.ratioVsRaw] ?? 0) > 0)
            }
            #expect((result.metrics[.bytesPerObject] != nil) == (parameters["operation"] == "fetch-all"))
        }
        let header = try #require(csv.split(separator: "\n").first).split(separator: ",").map(String.init)
        #expect(header.filter { $0 == "objects" }.count == 1, "objects is written once, as the parameter it is")
        #expect(
            header.firstIndex(of: "objects")! < header.firstIndex(of: "timestamp")!,
            "objects names the cell, so compare does not merge cells of different sizes")
        #expect(header.contains("implementation") && header.contains("operation") && header.contains("ratio_vs_raw"))
    }

    @Test("raw-per-lookup reads each key in a transaction of its own; fetch-by-id cells get a ratio against it")
    @MainActor
    func rawPerLookup() async throws {
        let (_, results, csv) = try await run(
            """
            name: lookups
            workload: engine-overhead
            repetitions: 1
            parameters: {samples: 2, lookups: 60}
            matrix:
              store: [sqlite, lmdb, memory]
              objects: [150]
              operation: [fetch-by-id, insert]
              implementation: [objectstack, raw, raw-per-lookup]
            """)
        for result in results { #expect(result.error == nil, "\(result.cell.label): \(result.error ?? "")") }
        let cells = results.map { $0.cell.parameters.mapValues(\.description) }
        // Only fetch-by-id on the two stores with transactions has a per-lookup cell.
        #expect(
            cells.filter { $0["implementation"] == "raw-per-lookup" }.map { $0["store"]! + "/" + $0["operation"]! }
                == ["sqlite/fetch-by-id", "lmdb/fetch-by-id"])
        try Self.expectRatios(
            .ratioVsPerLookup, column: "ratio_vs_per_lookup", base: "raw-per-lookup", in: results, csv: csv
        ) { $0["store"] != "memory" && $0["operation"] == "fetch-by-id" }
    }

    @Test(
        "swift-direct runs every operation raw has on SQLite and LMDB, reads back what it wrote, and is a ratio's base")
    @MainActor
    func swiftDirect() async throws {
        let (_, results, csv) = try await run(
            """
            name: direct
            workload: engine-overhead
            repetitions: 1
            parameters: {samples: 2, lookups: 50}
            matrix:
              store: [sqlite, lmdb, memory]
              objects: [130]
              operation: [insert, batch-insert, fetch-all, fetch-by-id, fetch-sorted, update, count]
              implementation: [objectstack, raw, swift-direct]
            """)
        for result in results { #expect(result.error == nil, "\(result.cell.label): \(result.error ?? "")") }
        let cells = results.map { $0.cell.parameters.mapValues(\.description) }
        let direct = cells.filter { $0["implementation"] == "swift-direct" }
        let raw = cells.filter { $0["implementation"] == "raw" && $0["store"] != "memory" }
        // Every operation of the raw cells, on the two stores with a C API; none on the in-memory store.
        #expect(direct.count == 14)
        #expect(
            Set(direct.map { $0["store"]! + "/" + $0["operation"]! })
                == Set(raw.map { $0["store"]! + "/" + $0["operation"]! }))
        try Self.expectRatios(
            .ratioVsSwiftDirect, column: "ratio_vs_swift_direct", base: "swift-direct", in: results, csv: csv
        ) { $0["store"] != "memory" }
        for result in results where result.cell.parameters["implementation"]?.description == "swift-direct" {
            #expect((result.metrics[.ratioVsRaw] ?? 0) > 0)
        }
    }

    @Test(
        "swift-objects runs fetch-all alone, on SQLite and LMDB, is judged against raw and swift-direct, and is a ratio's base"
    )
    @MainActor
    func swiftObjectsCells() async throws {
        let (_, results, csv) = try await run(
            """
            name: floor
            workload: engine-overhead
            repetitions: 1
            parameters: {samples: 2, lookups: 20}
            matrix:
              store: [sqlite, lmdb, memory]
              objects: [90]
              operation: [fetch-all, fetch-by-id, insert]
              implementation: [objectstack, raw, swift-direct, swift-objects]
            """)
        for result in results { #expect(result.error == nil, "\(result.cell.label): \(result.error ?? "")") }
        let floor = results.filter { $0.cell.parameters["implementation"]?.description == "swift-objects" }
        #expect(
            floor.map { $0.cell.parameters["store"]!.description + "/" + $0.cell.parameters["operation"]!.description }
                == ["sqlite/fetch-all", "lmdb/fetch-all"])
        for result in floor {
            #expect((result.metrics[.ratioVsRaw] ?? 0) > 0 && (result.metrics[.ratioVsSwiftDirect] ?? 0) > 0)
            // Measured (its size is the heap's growth, which tests running beside it can hide at 90 pods).
            #expect(result.metrics[.bytesPerObject] != nil)
        }
        // ObjectStack's fetch-all on the two stores is judged against the floor; nothing else has one.
        try Self.expectRatios(
            .ratioVsSwiftObjects, column: "ratio_vs_swift_objects", base: "swift-objects", in: results, csv: csv
        ) { $0["store"] != "memory" && $0["operation"] == "fetch-all" }
    }

    @Test("swift-objects hands back every pod once, as one object, in key order, and the table that uniques them")
    func swiftObjectsUnique() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("floor-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let cell = try #require(
            EngineOverheadCell(
                [
                    "store": .text("lmdb"), "implementation": .text("swift-objects"), "operation": .text("fetch-all"),
                    "objects": .integer(25),
                ], in: directory))
        let rows = cell.rows()
        let engine = try cell.engine(0)
        defer { engine.close() }
        try engine.insert(rows)
        try engine.reopen()
        let (held, checksum) = try engine.fetchAll()
        let fetched = try #require(held as? UniquedPods.Fetched)
        #expect(fetched.objects.map(\.row) == rows)
        #expect(checksum == rows.reduce(0) { $0 &+ $1.checksum })
        #expect(fetched.registered.count == rows.count)
        for object in fetched.objects { #expect(fetched.registered[UniquedPods.Key(key: object.row.id)] === object) }
    }

    /// Expects `metric` on exactly the cells `hasRatio` picks, 1 on the `base` implementation's own cells, and
    /// `column` in the CSV's header: a second reference implementation gives its ratio where it has a cell.
    static func expectRatios(
        _ metric: Metric, column: String, base: String, in results: [RunResult], csv: String,
        where hasRatio: ([String: String]) -> Bool
    ) throws {
        for result in results {
            let parameters = result.cell.parameters.mapValues(\.description)
            #expect((result.metrics[metric] != nil) == hasRatio(parameters), "\(result.cell.label)")
            if parameters["implementation"] == base { #expect(result.metrics[metric] == 1) }
        }
        let header = try #require(csv.split(separator: "\n").first).split(separator: ",").map(String.init)
        #expect(header.contains(column))
    }

    @Test(
        "raw (C), swift-direct and swift-objects (Swift) read back every value they wrote, and the C side its updates",
        arguments: [StoreKind.sqlite, .lmdb], [EngineOverheadWorkload.Implementation.raw, .swiftDirect, .swiftObjects])
    func readsBackValues(store: StoreKind, implementation: EngineOverheadWorkload.Implementation) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("direct-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let cell = try #require(
            EngineOverheadCell(
                [
                    "store": .text(store.name), "implementation": .text(implementation.rawValue),
                    "operation": .text("fetch-all"), "objects": .integer(40),
                ], in: directory))
        let rows = cell.rows()
        let engine = try cell.engine(0)
        defer { engine.close() }
        engine.prepareInsert(rows)
        try engine.insert(rows)
        try engine.reopen()
        #expect(try Self.values(engine.fetchAll().held).sorted { $0.id < $1.id } == rows)
        try engine.prepareUpdate([3, 7])
        try engine.update(round: 0)
        try engine.reopen()
        let updated = try Self.values(engine.fetchAll().held).filter { [3, 7].contains($0.id) }.sorted { $0.id < $1.id }
        #expect(updated.map(\.downloads) == [rows[2].downloads + 1, rows[6].downloads + 1])
        #expect(updated.map(\.updated) == [rows[2].updated + 1, rows[6].updated + 1])
        try engine.prepareLookups([40, 1, 2])
        #expect(try engine.fetchByID() == rows[39].checksum &+ rows[0].checksum &+ rows[1].checksum)
        try engine.prepareLookups([41])
        #expect(throws: StoreError.self) { try engine.fetchByID() }
    }

    /// The pods a fetch-all holds, as rows: Swift's `PodRow`s, or the C engines' `stacklab_pod`s read back.
    static func values(_ held: Any) throws -> [PodRow] {
        if let rows = held as? [PodRow] { return rows }
        if let fetched = held as? UniquedPods.Fetched { return fetched.objects.map(\.row) }
        let pods = try #require(held as? CPods)
        func text(_ pointer: UnsafeMutablePointer<CChar>?) -> String? { pointer.map { String(cString: $0) } }
        return (0..<pods.count).map { index in
            let pod = pods.pods![index]
            return PodRow(
                id: pod.id, name: text(pod.name) ?? "", version: text(pod.version) ?? "",
                authors: text(pod.authors) ?? "", homepage: text(pod.homepage), license: text(pod.license),
                summary: text(pod.summary), downloads: pod.downloads, updated: pod.updated)
        }
    }

    @Test("batch-insert times one BatchInsertRequest against the raw engine's insert, on every store")
    @MainActor
    func batchInsert() async throws {
        let (_, results, _) = try await run(
            """
            name: batch
            workload: engine-overhead
            repetitions: 1
            parameters: {samples: 2, operation: batch-insert, objects: 150}
            matrix:
              store: [sqlite, lmdb, memory]
              implementation: [objectstack, raw, grdb]
            """)
        // ObjectStack and raw on each store; GRDB has no batch insert of its own.
        #expect(results.count == 6)
        #expect(!results.contains { $0.cell.parameters["implementation"]?.description == "grdb" })
        for result in results {
            #expect(result.error == nil, "\(result.cell.label): \(result.error ?? "")")
            #expect((result.metrics[.ratioVsRaw] ?? 0) > 0)
        }
    }

    @Test("a batched import stores every pod", arguments: ["sqlite", "lmdb"])
    @MainActor
    func batchedImport(store: String) async throws {
        let (_, results, _) = try await run(
            """
            name: imported
            workload: engine-overhead
            repetitions: 1
            parameters: {store: \(store), implementation: objectstack, operation: import, objects: 250, batch_size: 60}
            """)
        let result = try #require(results.first)
        #expect(result.error == nil)
        #expect(result.metrics[.peakMemoryMegabytes] != nil)
    }

    @Test("a scenario that names GRDB on LMDB alone has no cell to run")
    func grdbOnLMDB() throws {
        let scenario = try ScenarioFile.parse(
            """
            name: none
            workload: engine-overhead
            parameters: {store: lmdb, implementation: grdb, operation: insert}
            """, file: URL(fileURLWithPath: "/tests/none.yaml"), workloads: .engines)
        #expect(scenario.cells().isEmpty)
    }

    @Test(
        "durability is a column: the file stores' writes at each setting against raw at the same; the rest at their own"
    )
    @MainActor
    func durability() async throws {
        let (_, results, csv) = try await run(
            """
            name: durability
            workload: engine-overhead
            repetitions: 1
            parameters: {samples: 2, objects: 120}
            matrix:
              store: [sqlite, lmdb, memory]
              operation: [insert, update, count]
              durability: [full, normal, off]
              implementation: [objectstack, raw]
            """)
        for result in results { #expect(result.error == nil, "\(result.cell.label): \(result.error ?? "")") }
        let cells = results.map { $0.cell.parameters.mapValues(\.description) }
        // Writes on the file stores at every setting (2 stores × 2 writes × 3 settings × 2 sides), the count at each
        // store's own (SQLite normal, LMDB full), the in-memory store at off only (nothing of it reaches a disk).
        #expect(results.count == 24 + 4 + 6)
        #expect(
            Set(cells.filter { $0["operation"] == "count" }.map { $0["store"]! + " " + $0["durability"]! })
                == ["sqlite normal", "lmdb full", "memory off"])
        #expect(Set(cells.filter { $0["store"] == "memory" }.map { $0["durability"]! }) == ["off"])
        for result in results {
            let parameters = result.cell.parameters.mapValues(\.description)
            if parameters["implementation"] == "raw" { #expect(result.metrics[.ratioVsRaw] == 1) }
            #expect((result.metrics[.ratioVsRaw] ?? 0) > 0, "paired with raw at \(parameters["durability"]!)")
        }
        let header = try #require(csv.split(separator: "\n").first).split(separator: ",").map(String.init)
        #expect(header.firstIndex(of: "durability")! < header.firstIndex(of: "timestamp")!)
    }

    @Test("ObjectStack's store in a cell opens at the cell's durability", arguments: ["sqlite", "lmdb"])
    func stackOpensAtTheCellsDurability(store: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cell-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (durability, level) in [("full", 2), ("normal", 1), ("off", 0)] {
            // A folder each: LMDB stores on one file in one process share an environment, and its durability.
            let cell = try #require(
                EngineOverheadCell(
                    [
                        "store": .text(store), "implementation": .text("objectstack"), "operation": .text("insert"),
                        "durability": .text(durability),
                    ], in: folder.appendingPathComponent(durability)))
            try FileManager.default.createDirectory(at: cell.directory, withIntermediateDirectories: true)
            let pods = try cell.stack()
            defer { pods.close() }
            let opened = try #require(pods.context.persistentStoreCoordinator?.persistentStores.first)
            let found =
                try (opened as? SQLiteStore)?.synchronousLevel()
                ?? [Durability.off, .normal, .full].firstIndex(of: (opened as! LMDBStore).durability)!
            #expect(found == level, "\(store) at \(durability)")
        }
    }
}
