import CLMDB
import Foundation
import ObjectStack
import Testing

@testable import ObjectStackLMDB

/// LMDB hands out primary keys from ranges reserved in the file, so no other process is given the same keys; a
/// range the process never used goes back to the file when the store closes.
@Suite("LMDB key reservation")
struct LMDBKeyReservationTests {
    @Test("keys handed out are reserved in the file first, in ranges; unused ones go back when the store closes")
    func reservesInTheFile() throws {
        let folder = try ScratchFolder()
        let url = folder.file()
        let stack = try LMDBStack(url)
        let store = try #require(stack.store as? LMDBStore)
        let item = stack.coordinator.managedObjectModel.entitiesByName["Item"]!
        let first = try store.newObjectIDs(for: item, count: 3)
        #expect(first.map(\.key) == [1, 2, 3])
        #expect(try reserved(store, item) == LMDBStore.keyReservationBlock, "one range reserved, not one key")
        // The next request comes from the range already held: no new reservation.
        #expect(try store.newObjectIDs(for: item, count: 2).map(\.key) == [4, 5])
        #expect(try reserved(store, item) == LMDBStore.keyReservationBlock)
        // A request larger than what is left reserves a larger range.
        let large = try store.newObjectIDs(for: item, count: 300)
        #expect(large.first?.key == LMDBStore.keyReservationBlock + 1)
        #expect(try reserved(store, item) == LMDBStore.keyReservationBlock + 512)
        let last = try #require(large.last?.key)
        try stack.coordinator.remove(stack.store)
        // Closed: the keys reserved but never handed out went back, so a new open continues after the last one.
        let reopened = try LMDBStack(url)
        let again = try #require(reopened.store as? LMDBStore)
        #expect(try reserved(again, item) == last)
        #expect(try again.newObjectIDs(for: item, count: 1).map(\.key) == [last + 1])
    }

    @Test("a batch insert takes its keys inside its own transaction, past every key reserved")
    func batchKeys() throws {
        let folder = try ScratchFolder()
        let stack = try LMDBStack(folder.file())
        let store = try #require(stack.store as? LMDBStore)
        let item = stack.coordinator.managedObjectModel.entitiesByName["Item"]!
        _ = try store.newObjectIDs(for: item, count: 1)
        let context = stack.context()
        let ids = try context.performAndWait { () throws in
            var request = BatchInsertRequest(entityName: "Item", objects: [["code": "a"], ["code": "b"]])
            request.resultType = .objectIDs
            return try #require(try context.execute(request).objectIDs)
        }
        let reservedBefore = LMDBStore.keyReservationBlock
        #expect(ids.map(\.key) == [reservedBefore + 1, reservedBefore + 2])
        #expect(try reserved(store, item) == reservedBefore + 2)
    }

    private func reserved(_ store: LMDBStore, _ entity: EntityDescription) throws -> Int64 {
        try store.environment.read { txn in
            try LMDBStore.lastKeyName(entity.rootEntity).withUnsafeBytes { key in
                guard let value = try txn.get(store.schema.meta, key), value.count == 8 else { return 0 }
                return value.primaryKey(at: 0)
            }
        }
    }
}
