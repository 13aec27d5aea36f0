import Foundation
import LabReliability
import LabWorkloads
import ObjectStack
import TestSupport
import Testing

/// A migration killed with SIGKILL at any point leaves the old store whole; the next run discards the partial
/// file and completes. Each kill happens in a real child process (`stacklab child migrate`).
@Suite("Migration crash safety")
struct MigrationCrashTests {
    enum KillPoint: String, CaseIterable, Sendable {
        case firstBatch = "copying"
        case halfway = "0.5"
        case beforeSwap = "replacing"

        var arguments: [String] {
            switch self {
            case .firstBatch, .beforeSwap: return ["--kill-in-phase", rawValue]
            case .halfway: return ["--kill-at-fraction", rawValue]
            }
        }
    }

    struct Case: Sendable, CustomStringConvertible {
        let store: StoreKind
        let killPoint: KillPoint
        /// Whether the migration runs the pod model's mapping model (MigrationManager) instead of a lightweight one.
        let mapping: Bool
        var description: String { "\(store.name)\(mapping ? " mapping model" : "") killed at \(killPoint)" }
    }

    static let cases = StoreKind.fileStores.flatMap { store in
        [false, true].flatMap { mapping in
            KillPoint.allCases.map { Case(store: store, killPoint: $0, mapping: mapping) }
        }
    }

    private static let objects = 20_000
    /// A mapping model's migration makes a managed object per pod (Core Data's does too): fewer pods keep it quick.
    private static let mappingObjects = 2_000

    /// Every pod of a store as text, in key order (with the stars the pod mapping model computes, when asked).
    private func rows(_ store: StoreKind, _ url: URL, version: Int, stars: Bool = false) throws -> [String] {
        let model = try PodModel.make(version: version)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let opened = try coordinator.addPersistentStore(type: store.storeType, at: url)
        defer { try? coordinator.remove(opened) }
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        let text = version >= 3 ? "tagline" : "summary"
        return try context.performAndWait { () throws in
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Pod")).map { pod in
                var line = ["name", "version", "authors", "homepage", "license", text, "downloads", "updated"]
                    .map { "\(pod.value(forKey: $0) ?? "nil")" }.joined(separator: "|")
                if stars {
                    let downloads = pod.value(forKey: "downloads") as? Int ?? 0
                    line += version >= 2 ? "|\(pod.value(forKey: "stars") ?? "nil")" : "|\(downloads % 5)"
                }
                return line
            }
        }
    }

    private func probe(_ store: StoreKind, _ url: URL, _ extra: [String]) throws -> (Process, String) {
        try StackLabBinary.launch(
            [
                "child", "migrate", "--store", store.name, "--path", url.path, "--to-version", "2",
                "--batch-size", "1000",
            ] + extra)
    }

    @Test(
        "a migration killed partway leaves every row of the old store, and the next run completes",
        arguments: cases)
    func killedMigration(_ testCase: Case) throws {
        let objects = testCase.mapping ? Self.mappingObjects : Self.objects
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stacklab-crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("pods.\(testCase.store.name)")
        _ = try PodStoreSeeder(
            store: testCase.store, objects: objects, modelVersion: 1, url: url, batchSize: 5_000
        ).run()
        let before = try rows(testCase.store, url, version: 1)
        let expected = try rows(testCase.store, url, version: 1, stars: true)
        #expect(before.count == objects)

        let method = testCase.mapping ? ["--mapping"] : []
        let (killed, output) = try probe(testCase.store, url, testCase.killPoint.arguments + method)
        #expect(killed.terminationReason == .uncaughtSignal && killed.terminationStatus == SIGKILL, "\(output)")
        if testCase.killPoint == .beforeSwap, testCase.mapping {
            // A mapping model's migration builds the whole new store beside the old one before the swap.
            #expect(FileManager.default.fileExists(atPath: url.path + ".migrating"), "no new store was built")
        } else if testCase.killPoint == .beforeSwap {
            // Both stores add the attribute in place, in one transaction (SQLite a column, LMDB the layout of the
            // rows already written), and were killed before its commit: there is no copy to swap in.
            #expect(!FileManager.default.fileExists(atPath: url.path + ".migrating"), "the migration copied the rows")
        }
        #expect(try rows(testCase.store, url, version: 1) == before)

        let (finished, log) = try probe(testCase.store, url, method)
        #expect(finished.terminationStatus == 0, "\(log)")
        #expect(log.contains("migrated \(objects) rows"))
        #expect(!FileManager.default.fileExists(atPath: url.path + ".migrating"))
        // The mapping model's pods have their stars computed; a lightweight migration's keep the default.
        #expect(
            try rows(testCase.store, url, version: 2, stars: testCase.mapping) == (testCase.mapping ? expected : before)
        )
    }
}

/// A store Core Data wrote, killed while it migrates through its repository's Xcode mapping model (objc.io's
/// `Moody 2-Moody 3`, whose value expressions reach through key paths and `@distinctUnionOfSets`): every row of the
/// old store is still there, and the next run completes.
@Suite(
    "Mapping-model migration crash safety",
    .enabled(if: CoreDataStoreCorpus.shared != nil, "no shared/coredata-stores"))
struct MappingMigrationCrashTests {
    static let killPoints: [[String]] = [
        ["--kill-in-phase", "copying"], ["--kill-at-fraction", "0.5"], ["--kill-in-phase", "replacing"],
    ]

    /// Every object of every entity as text, sorted: what must survive a kill.
    private func contents(_ url: URL, _ model: ManagedObjectModel) throws -> [String] {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        defer { try? coordinator.remove(store) }
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return try context.performAndWait { () throws in
            try model.entities.filter { !$0.isAbstract }.flatMap { entity in
                var request = FetchRequest<ManagedObject>(entityName: entity.name)
                request.includesSubentities = false
                return try context.fetch(request).map { object in
                    entity.name + ": "
                        + entity.attributes.map { "\($0.name)=\(object.value(forKey: $0.name) ?? "nil")" }
                        .joined(separator: " ")
                }
            }.sorted()
        }
    }

    @Test(
        "a Core Data store killed while it migrates through an Xcode mapping model keeps every row",
        arguments: killPoints)
    func killed(_ killPoint: [String]) throws {
        let corpus = try #require(CoreDataStoreCorpus.shared)
        let entry = try #require(
            corpus.mappingModels.first { $0.url.lastPathComponent == "Moody 2-Moody 3.xcmappingmodel" })
        let bundle = try #require(entry.bundles.first)
        let store = try #require(corpus.stores.first { $0.folder == entry.folder && $0.versionName == "Moody 2" })
        let versions = try ManagedObjectModel.versions(contentsOf: bundle)
        let source = try #require(versions.first { $0.name == "Moody 2" }).model
        let destination = try #require(versions.first { $0.name == "Moody 3" }).model
        let url = try store.copy()
        let before = try contents(url, source)
        let arguments = [
            "child", "migrate", "--store", "sqlite", "--path", url.path, "--mapping-model", entry.url.path, "--model",
            bundle.path,
        ]
        let (killed, output) = try StackLabBinary.launch(arguments + killPoint)
        #expect(killed.terminationReason == .uncaughtSignal && killed.terminationStatus == SIGKILL, "\(output)")
        #expect(try contents(url, source) == before)
        let (finished, log) = try StackLabBinary.launch(arguments)
        #expect(finished.terminationStatus == 0, "\(log)")
        #expect(!FileManager.default.fileExists(atPath: url.path + ".migrating"))
        #expect(try contents(url, destination).count == before.count)
    }
}
