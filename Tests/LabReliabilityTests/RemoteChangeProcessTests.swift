import Foundation
import LabReliability
import LabWorkloads
import ObjectStack
import TestSupport
import Testing

/// Remote change notifications and persistent history between two real processes on one store file: a child
/// writes, this process listens and reads the child's history.
@Suite("Remote changes from another process")
struct RemoteChangeProcessTests {
    @Test(
        "every commit of another process is announced here with a token that reaches it, and its history reads back",
        arguments: StoreKind.fileStores)
    func announcesOtherProcess(store: StoreKind) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stacklab-remote-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("remote.\(store.name)")
        let outcome = try RemoteChangeProbe.measure(
            executable: StackLabBinary.url, store: store, at: url, count: 12, interval: 0.03)
        #expect(outcome.missed.isEmpty, "transactions never announced: \(outcome.missed)")
        #expect(outcome.latencies.count == 12)
        // No timing assertion (a loaded machine): `stacklab remote-change` measures the latency.

        // The child's transactions are in the file, with its author and process, read by this process.
        let coordinator = try RemoteChangeProbe.openCoordinator(store: store, at: url, remoteChange: false)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait { () throws in
            let transactions = try context.execute(
                PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)
            ).transactions
            #expect(transactions.count == 12)
            #expect(transactions.allSatisfy { $0.author == "remote-writer" })
            #expect(transactions.allSatisfy { $0.processID != String(getpid()) })
            // Every third write is a batch insert of three notes; the others save one.
            #expect(transactions.map { $0.changes?.count ?? 0 } == (0..<12).map { $0 % 3 == 2 ? 3 : 1 })
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Note")) == 8 + 4 * 3)
        }
        for store in coordinator.persistentStores { try coordinator.remove(store) }
    }
}
