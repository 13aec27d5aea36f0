import Foundation
import ObjectStack
import TestSupport
import Testing

@testable import LabWorkloads

/// Scenarios on a store file (`store_file:` beside `model:`): the startup workload launches on a copy of a store
/// Core Data wrote, sync and async, walking the bundle's history under the watchdog; read-write-mix runs on a copy;
/// the file itself never changes, and a store of another model is refused naming both.
@Suite("Scenarios on a store file", .enabled(if: CoreDataStoreCorpus.shared != nil, "no corpus"))
struct StoreFileScenarioTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func corpusStore(_ name: String) throws -> CoreDataStoreCorpus.Store {
        try #require(CoreDataStoreCorpus.shared?.stores.first { $0.url.lastPathComponent == name })
    }

    /// Every file beside the store, with its bytes and modification date: what "never the original" compares.
    static func fingerprint(_ store: URL) throws -> [String: String] {
        let folder = store.deletingLastPathComponent()
        var files: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            let path = folder.appendingPathComponent(name).path
            let data = FileManager.default.contents(atPath: path) ?? Data()
            let modified = (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate]) as? Date
            files[name] = "\(data.hashValue) \(data.count) \(modified?.timeIntervalSince1970 ?? 0)"
        }
        return files
    }

    @MainActor
    static func run(_ scenario: Scenario) async throws -> [RunResult] {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("storefile-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let runner = ScenarioRunner(
            options: .init(outDirectory: out, quick: true), progress: ProgressReporter(isTerminal: false) { _ in })
        return try await runner.run(runner.prepared(scenario))
    }

    @Test("Scenarios/own-store.yaml launches on a copy of Moody 2, sync and async, through three mapping models")
    @MainActor
    func ownStoreScenario() async throws {
        let file = Self.repository.appendingPathComponent("Scenarios/own-store.yaml")
        let scenario = try ScenarioFile.load(file, workloads: .stack)
        let loaded = try #require(scenario.loadedModelFile as? ScenarioModelFile)
        let store = try #require(loaded.storeFile)
        #expect(store.versionName == "Moody 2" && loaded.selection.version.name == "Moody 5")
        #expect(store.rows == 9)
        let before = try Self.fingerprint(store.url)
        let results = try await Self.run(scenario)
        #expect(results.map { $0.cell.parameters["mode"]?.description } == ["sync", "async"])
        for result in results {
            #expect(result.error == nil, "\(result.error ?? "")")
            #expect(result.metrics[.killedByWatchdog] == 0)
            #expect(result.metrics[.migrated] == 1)
            #expect(result.metrics[.objects] == 9)
            let frame = try #require(result.metrics[.timeToFirstFrameMilliseconds])
            let ready = try #require(result.metrics[.timeToStoreReadyMilliseconds])
            let screen = try #require(result.metrics[.timeToFirstScreenMilliseconds])
            #expect(frame > 0 && ready > 0 && screen >= ready)
            // Sync migrates on the main thread before the first frame; async draws it first.
            if result.cell.parameters["mode"]?.description == "sync" {
                #expect(frame >= ready)
            } else {
                #expect(frame < ready)
            }
        }
        #expect(try Self.fingerprint(store.url) == before, "the store file's folder changed")
    }

    @Test("a deadline the launch cannot meet is a miss the watchdog reports, sync and async, not a failure")
    @MainActor
    func deadlineApplies() async throws {
        let store = try Self.corpusStore("Moody 2.moody")
        let bundle = try #require(store.bundle)
        let text = """
            name: missed
            workload: startup
            model: \(bundle.path)
            version: Moody 5
            store_file: "\(store.url.path)"
            first_screen: {entity: Mood, sort: [-date]}
            parameters: {store: sqlite, migration: history, deadline_s: 0.001}
            matrix:
              mode: [sync, async]
            """
        let folder = FileManager.default.temporaryDirectory
        let results = try await Self.run(try ScenarioFile.parse(text, file: folder.appendingPathComponent("m.yaml")))
        #expect(results.count == 2)
        for result in results {
            #expect(result.error == nil, "\(result.error ?? "")")
            #expect(result.metrics[.killedByWatchdog] == 1, "\(result.cell.parameters)")
            #expect(result.metrics[.deadlineMilliseconds] == 1)
            #expect(result.metrics[.timeToFirstScreenMilliseconds] == nil)
        }
    }

    @Test("a store of another model is refused when the scenario is read, naming the file and the model")
    func wrongBundle() throws {
        let store = try Self.corpusStore("Bookmarks_V2.sqlite")
        let moody = try #require(try Self.corpusStore("Moody 2.moody").bundle)
        func text(_ workload: String, _ storeFile: URL) -> String {
            """
            name: wrong
            workload: \(workload)
            model: \(moody.path)
            store_file: "\(storeFile.path)"
            parameters: {store: sqlite}
            """
        }
        let folder = FileManager.default.temporaryDirectory
        let error = try #require(throws: LabError.self) {
            try ScenarioFile.parse(text("startup", store.url), file: folder.appendingPathComponent("w.yaml"))
        }
        #expect(
            error.message.contains("w.yaml:4: store_file Bookmarks_V2.sqlite does not match model Moody.xcdatamodeld"),
            "\(error.message)")
        // A workload that seeds its own store refuses store_file rather than ignore it.
        let moodyStore = try Self.corpusStore("Moody 2.moody").url
        let seeding = try #require(throws: LabError.self) {
            try ScenarioFile.parse(text("save-chain", moodyStore), file: folder.appendingPathComponent("s.yaml"))
        }
        #expect(
            seeding.message.contains("store_file names a store to run on; workload save-chain seeds its own store"),
            "\(seeding.message)")
    }

    @Test("read-write-mix runs on a copy of the store, walked to the scenario's version, and leaves the file as it was")
    @MainActor
    func readWriteMix() async throws {
        let store = try Self.corpusStore("Moody 2.moody")
        let bundle = try #require(store.bundle)
        let before = try Self.fingerprint(store.url)
        let text = """
            name: mix
            workload: read-write-mix
            model: \(bundle.path)
            version: Moody 5
            store_file: "\(store.url.path)"
            first_screen: {entity: Mood, sort: [-date]}
            parameters: {store: sqlite, strategy: shared-coordinator, duration_s: 0.3, write_rate: 50, batch_size: 5}
            """
        let results = try await Self.run(
            try ScenarioFile.parse(text, file: FileManager.default.temporaryDirectory.appendingPathComponent("x.yaml")))
        let result = try #require(results.first)
        #expect(result.error == nil, "\(result.error ?? "")")
        // The store's 7 rows at Moody 5 (its 9 at Moody 2, as the mapping models leave them), and what the mix added.
        #expect((result.metrics[.storedObjects] ?? 0) >= 4, "\(result.metrics)")
        #expect(try Self.fingerprint(store.url) == before, "the store file's folder changed")
    }
}
