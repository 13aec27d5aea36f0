import Foundation
import LabReliability
import LabWorkloads
import ObjectStack
import TestSupport
import Testing

/// A save interrupted by SIGKILL must leave the store as it was before that save or after it, never between.
@Suite("Crash during save")
struct CrashDuringSaveTests {
    /// CI's size; `STACKLAB_KILLS=500 swift test --filter CrashDuringSaveTests` is the release-run setting.
    static let kills = Int(ProcessInfo.processInfo.environment["STACKLAB_KILLS"] ?? "") ?? 50

    @Test(
        "save loops killed at random moments lose no acknowledged save and tear none", arguments: StoreKind.fileStores)
    func killCampaign(store: StoreKind) throws {
        let campaign = KillCampaign(
            CampaignSettings(
                executable: StackLabBinary.url, store: store, kills: Self.kills, seed: UInt64.random(in: 1...1_000_000))
        )
        let outcome = try campaign.run()
        #expect(outcome.kills == Self.kills)
        #expect(outcome.savesAcknowledged > 0, "the children got far enough to save before being killed")
    }

    func completedLoop(_ store: StoreKind) throws -> SaveLoop {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stacklab-loop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let loop = SaveLoop(
            store: store, url: directory.appendingPathComponent("store"),
            journal: directory.appendingPathComponent("journal"),
            seed: 7)
        try loop.run(limit: 12)
        return loop
    }

    @Test("the check passes an intact store and names a lost acknowledged save", arguments: StoreKind.fileStores)
    func detectsLostSave(store: StoreKind) throws {
        let loop = try completedLoop(store)
        let intact = try loop.verify()
        #expect(intact.lastSave == 12 && intact.acknowledged == 12)
        // Saves 5 and 10 deleted batches 2 and 7.
        let expected = (1...12).filter { $0 != 2 && $0 != 7 }.map { loop.entries(inSave: Int64($0)) }.reduce(0, +)
        #expect(intact.entries == expected)

        let handle = try FileHandle(forWritingTo: loop.journal)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("13\n".utf8))
        try handle.close()
        let error = #expect(throws: SaveLoopError.self) { try loop.verify() }
        #expect(error?.description.contains("save 13 was acknowledged") == true)
    }

    @Test("the check names a batch that is there only in part", arguments: StoreKind.fileStores)
    func detectsTornSave(store: StoreKind) throws {
        let loop = try completedLoop(store)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try SaveLoop.model())
        try coordinator.addPersistentStore(type: store == .sqlite ? .sqlite : .lmdb, at: loop.url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            var request = FetchRequest<ManagedObject>(entityName: "Entry")
            request.predicate = try FetchPredicate(format: "batch == 9")
            request.fetchLimit = 1
            context.delete(try #require(try context.fetch(request).first))
            try context.save()
        }
        try coordinator.remove(coordinator.persistentStores[0])
        let error = #expect(throws: SaveLoopError.self) { try loop.verify() }
        #expect(error?.description.contains("batch 9 has \(loop.entries(inSave: 9) - 1) entries") == true)
    }
}
