import CLMDB
import Foundation
import ObjectStack
import Testing

@testable import ObjectStackLMDB

/// The LMDB store's `durability` option (its environment's sync flags) and its integrity walk.
@Suite("LMDB durability and integrity")
struct LMDBDurabilityTests {
    @Test(
        "durability full, normal and off open the environment synced, MDB_NOMETASYNC and MDB_NOSYNC; none is full",
        arguments: [(String?.none, Durability.full), ("full", .full), ("normal", .normal), ("off", .off)])
    func flags(option: String?, durability: Durability) throws {
        let folder = try ScratchFolder()
        let stack = try LMDBStack(folder.file(), options: option.map { ["durability": $0] } ?? [:])
        let store = try #require(stack.store as? LMDBStore)
        #expect(store.durability == durability)
        let flags = try store.environment.gate.shared { env -> UInt32 in
            var flags: UInt32 = 0
            mdb_env_get_flags(env, &flags)
            return flags
        }
        #expect((flags & UInt32(MDB_NOSYNC) != 0) == (durability == .off))
        #expect((flags & UInt32(MDB_NOMETASYNC) != 0) == (durability == .normal))
        #expect(flags & UInt32(MDB_WRITEMAP) == 0, "pages are written with pwrite, never through the map")
    }

    @Test("an unknown durability is refused naming it, and the store file is not created")
    func refused() throws {
        let folder = try ScratchFolder()
        let error = try #require(throws: StoreError.self) {
            try LMDBStack(folder.file(), options: ["durability": "sometimes"])
        }
        #expect(error.code == .invalidOption && error.message.contains("'sometimes'"))
        #expect(!FileManager.default.fileExists(atPath: folder.file().path))
    }

    @Test("stores sharing an environment keep the strongest durability asked for")
    func strongestWins() throws {
        let folder = try ScratchFolder()
        let off = try LMDBStack(folder.file(), options: ["durability": "off"])
        #expect((off.store as! LMDBStore).durability == .off)
        let normal = try LMDBStack(folder.file(), options: ["durability": "normal"])
        #expect((off.store as! LMDBStore).durability == .normal)
        _ = try LMDBStack(folder.file(), options: ["durability": "off"])
        #expect((normal.store as! LMDBStore).durability == .normal, "a weaker request does not weaken it")
        _ = try LMDBStack(folder.file())
        #expect((off.store as! LMDBStore).durability == .full)
    }

    /// A store of `count` items whose integrity walk found nothing, and its layout.
    private static func store(_ folder: ScratchFolder, items count: Int) throws -> (LMDBStore, LMDBSchema.EntityLayout)
    {
        let stack = try LMDBStack(folder.file())
        try stack.insertItems(count)
        let store = try #require(stack.store as? LMDBStore)
        #expect(try store.checkIntegrity() == [])
        let item = stack.coordinator.managedObjectModel.entitiesByName["Item"]!
        return (store, try #require(store.schema.layout(of: item)))
    }

    @Test("the integrity walk names a row whose index entry is gone")
    func missingIndexEntry() throws {
        let folder = try ScratchFolder()
        let (store, layout) = try Self.store(folder, items: 50)
        try store.environment.write { txn in
            try txn.withCursor(layout.indexes[0].dbi) { cursor in
                _ = try cursor.move(MDB_FIRST)
                try cursor.deleteCurrent()
            }
        }
        let problems = try store.checkIntegrity()
        #expect(problems.contains { $0.contains("has no entry in its index") })
        #expect(problems.contains { $0.contains("holds 49 entries; its rows own 50") })
    }

    @Test("the integrity walk names index, uniqueness and referrer entries whose row is gone")
    func missingRow() throws {
        let folder = try ScratchFolder()
        let (store, layout) = try Self.store(folder, items: 20)
        try store.environment.write { txn in
            try txn.withCursor(layout.rows) { cursor in
                _ = try cursor.move(MDB_LAST)
                try cursor.deleteCurrent()
            }
        }
        let problems = try store.checkIntegrity()
        #expect(problems.contains { $0.contains("unique code") && $0.contains("holds 20 entries; its rows own 19") })
    }

    @Test("the integrity walk names a row that does not decode and a key past the reserved ones")
    func damagedRow() throws {
        let folder = try ScratchFolder()
        let (store, layout) = try Self.store(folder, items: 5)
        try store.environment.write { txn in
            var key = [UInt8]()
            key.appendPrimaryKey(1 << 40)
            let garbage = [UInt8](repeating: 0xFF, count: 9)
            _ = try key.withUnsafeBytes { k in try garbage.withUnsafeBytes { try txn.put(layout.rows, k, $0) } }
        }
        let problems = try store.checkIntegrity()
        #expect(problems.contains { $0.contains("row \(1 << 40) of rows/Item does not decode") })
        #expect(problems.contains { $0.contains("past the last key the file reserved") })
    }

    @Test("a row whose header counts more fields than it has bytes reads as damaged, with nothing allocated for them")
    func fieldCountPastTheRow() throws {
        let folder = try ScratchFolder()
        let (store, layout) = try Self.store(folder, items: 1)
        let item = try #require(try ItemModel.make().entitiesByName["Item"])
        let code = store.codec.code(of: item)
        var row: [UInt8] = [LMDBRowCodec.formatVersion, UInt8(code & 0xFF), UInt8(code >> 8)]
        LMDBRowCodec.appendVarint(1, to: &row)  // the version
        LMDBRowCodec.appendVarint(1 << 40, to: &row)  // the field count
        row.append(0)  // one field, nil
        try store.environment.write { txn in
            var key = [UInt8]()
            key.appendPrimaryKey(1 << 40)
            _ = try key.withUnsafeBytes { k in try row.withUnsafeBytes { try txn.put(layout.rows, k, $0) } }
        }
        let id = ManagedObjectID(entity: item, storeIdentifier: store.identifier, primaryKey: 1 << 40)
        let error = try #require(throws: StoreError.self) { try store.snapshot(for: id) }
        #expect(error.code == .corrupt && error.message.contains("field count"))
    }
}
