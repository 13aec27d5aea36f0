import Foundation
import LabReliability
import LabWorkloads
import ObjectStack
import TestSupport
import Testing

/// The history crash test: a writer with persistent history killed at random moments; after each kill the history
/// and the rows must agree.
@Suite("History crash test")
struct HistoryCrashTests {
    /// CI's size; `STACKLAB_HISTORY_KILLS=200` (or `stacklab crash-test --history --kills 200`) is the full campaign.
    static let kills = Int(ProcessInfo.processInfo.environment["STACKLAB_HISTORY_KILLS"] ?? "") ?? 6

    @Test("a writer killed at random leaves no row change without its transaction", arguments: StoreKind.fileStores)
    func campaign(store: StoreKind) throws {
        let outcome = try HistoryCampaign(
            CampaignSettings(
                executable: StackLabBinary.url, store: store, kills: Self.kills, seed: 7, maximumRunMilliseconds: 200)
        ).run()
        #expect(outcome.kills == Self.kills)
        #expect(outcome.last.transactions > 0)
    }

    @Test(
        "the check finds a row written without its transaction, and a transaction whose row is gone",
        arguments: StoreKind.fileStores)
    func checkCanFail(store: StoreKind) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stacklab-history-check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("store.\(store.name)")
        let loop = HistoryLoop(store: store, url: url, seed: 3)
        try loop.run(limit: 8)
        let good = try loop.verify()
        #expect(good.lastWrite == 8)
        #expect(good.rows > 0)

        // A coordinator without history tracking writes rows the history never hears of.
        let untracked = try LabStack.openContext(store: store, at: url, model: try HistoryLoop.model())
        try untracked.performAndWait { () throws in
            let entry = try untracked.insertNewObject(forEntityName: "Entry")
            try entry.setValue(Int64(1), forKey: "batch")
            try entry.setValue("p1", forKey: "payload")
            try untracked.save()
        }
        #expect(throws: SaveLoopError.self) { try loop.verify() }
        try untracked.performAndWait { () throws in
            for entry in try untracked.fetch(FetchRequest<ManagedObject>(entityName: "Entry")) {
                untracked.delete(entry)
            }
            try untracked.save()
        }
        // Now every row the history inserted is gone without a delete in the history.
        #expect(throws: SaveLoopError.self) { try loop.verify() }
        for store in untracked.persistentStoreCoordinator?.persistentStores ?? [] {
            try untracked.persistentStoreCoordinator?.remove(store)
        }
    }
}
