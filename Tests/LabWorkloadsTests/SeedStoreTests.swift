import Foundation
import LabWorkloads
import ObjectStack
import Testing

/// `stacklab seed-store`: the same seed gives the same store, of the asked size and model version.
@Suite("Seeded stores")
struct SeedStoreTests {
    private func names(_ store: StoreKind, _ url: URL, version: Int) throws -> [String] {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try PodModel.make(version: version))
        let opened = try coordinator.addPersistentStore(type: store.storeType, at: url)
        defer { try? coordinator.remove(opened) }
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return try context.performAndWait { () throws in
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Pod")).map {
                "\($0.value(forKey: "name") ?? "")|\($0.value(forKey: "downloads") ?? "")"
            }
        }
    }

    @Test(
        "a seed gives the same pods every time, another seed others; the store holds the asked version",
        arguments: StoreKind.fileStores)
    func deterministic(store: StoreKind) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stacklab-seed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = folder.appendingPathComponent("a.\(store.name)")
        let second = folder.appendingPathComponent("b.\(store.name)")
        let third = folder.appendingPathComponent("c.\(store.name)")
        let report = try PodStoreSeeder(store: store, objects: 2_500, modelVersion: 2, url: first, batchSize: 1_000)
            .run()
        _ = try PodStoreSeeder(store: store, objects: 2_500, modelVersion: 2, url: second, batchSize: 700).run()
        _ = try PodStoreSeeder(store: store, objects: 2_500, modelVersion: 2, url: third, seed: 7).run()
        #expect(report.summary.contains("seeded 2500 Pod objects (pod model version 2, seed 42)"))
        let pods = try names(store, first, version: 2)
        #expect(pods.count == 2_500 && Set(pods).count == 2_500)
        #expect(try names(store, second, version: 2) == pods)
        #expect(try names(store, third, version: 2) != pods)
        #expect(throws: StoreError.self) { try names(store, first, version: 1) }
        #expect(throws: ObjectStackError.self) {
            try PodStoreSeeder(store: store, objects: 10, modelVersion: 2, url: first).run()
        }
    }
}
