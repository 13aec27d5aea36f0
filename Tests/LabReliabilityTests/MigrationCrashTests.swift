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
        var description: String { "\(store.name) killed at \(killPoint)" }
    }

    static let cases = StoreKind.fileStores.flatMap { store in
        KillPoint.allCases.map { Case(store: store, killPoint: $0) }
    }

    private static let objects = 20_000

    /// Every pod of a store as text, in key order.
    private func rows(_ store: StoreKind, _ url: URL, version: Int) throws -> [String] {
        let model = try PodModel.make(version: version)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let opened = try coordinator.addPersistentStore(type: store.storeType, at: url)
        defer { try? coordinator.remove(opened) }
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        let text = version >= 3 ? "tagline" : "summary"
        return try context.performAndWait { () throws in
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Pod")).map { pod in
                ["name", "version", "authors", "homepage", "license", text, "downloads", "updated"]
                    .map { "\(pod.value(forKey: $0) ?? "nil")" }.joined(separator: "|")
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
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stacklab-crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("pods.\(testCase.store.name)")
        _ = try PodStoreSeeder(
            store: testCase.store, objects: Self.objects, modelVersion: 1, url: url, batchSize: 5_000
        ).run()
        let before = try rows(testCase.store, url, version: 1)
        #expect(before.count == Self.objects)

        let (killed, output) = try probe(testCase.store, url, testCase.killPoint.arguments)
        #expect(killed.terminationReason == .uncaughtSignal && killed.terminationStatus == SIGKILL, "\(output)")
        if testCase.killPoint == .beforeSwap {
            // Both stores add the attribute in place, in one transaction (SQLite a column, LMDB the layout of the
            // rows already written), and were killed before its commit: there is no copy to swap in.
            #expect(!FileManager.default.fileExists(atPath: url.path + ".migrating"), "the migration copied the rows")
        }
        #expect(try rows(testCase.store, url, version: 1) == before)

        let (finished, log) = try probe(testCase.store, url, [])
        #expect(finished.terminationStatus == 0, "\(log)")
        #expect(log.contains("migrated \(Self.objects) rows"))
        #expect(!FileManager.default.fileExists(atPath: url.path + ".migrating"))
        #expect(try rows(testCase.store, url, version: 2) == before)
    }
}
