import CLMDB
import Foundation
import ObjectStack
import Testing

@testable import ObjectStackLMDB

/// Bad files give a `StoreError` that names what is wrong and where, and a failed open changes nothing.
@Suite("LMDB store: bad input")
struct LMDBBadInputTests {
    private func openError(_ url: URL, model: ManagedObjectModel? = nil) throws -> StoreError {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try model ?? ItemModel.make())
        return try #require(throws: StoreError.self) { try coordinator.addPersistentStore(type: .lmdb, at: url) }
    }

    private func lockExists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path + "-lock") }

    /// Creates a store with some items and closes it.
    private func makeStore(_ url: URL, items: Int = 300) throws {
        let stack = try LMDBStack(url)
        try stack.insertItems(items)
        try stack.coordinator.remove(stack.store)
    }

    @Test("a damaged meta page is refused as corrupt")
    func damagedMeta() throws {
        let folder = try ScratchFolder()
        let url = folder.file()
        try makeStore(url)
        var bytes = try Data(contentsOf: url)
        // The free database's md_pad in the first meta page holds the page size: make it impossible.
        bytes.replaceSubrange(16 + 24..<16 + 28, with: [3, 0, 0, 0])
        try bytes.write(to: url)
        let error = try openError(url)
        #expect(error.code == .corrupt && error.message.contains("page size"))
        #expect(try Data(contentsOf: url) == bytes)
    }

    @Test("a store of another model is refused naming the entity; the file is not modified")
    func otherModel() throws {
        let folder = try ScratchFolder()
        let url = folder.file()
        try makeStore(url)
        let before = try Data(contentsOf: url)
        let error = try openError(url, model: try ItemModel.make(extraAttribute: true))
        #expect(error.code == .incompatibleModel && error.message.contains("Item"))
        #expect(try Data(contentsOf: url) == before)
    }

    @Test("an LMDB environment written by another program is refused")
    func foreignEnvironment() throws {
        let folder = try ScratchFolder()
        let url = folder.file()
        var env: OpaquePointer?
        #expect(mdb_env_create(&env) == 0)
        #expect(mdb_env_open(env, url.path, UInt32(MDB_NOSUBDIR), 0o644) == 0)
        var txn: OpaquePointer?
        #expect(mdb_txn_begin(env, nil, 0, &txn) == 0)
        var dbi: MDB_dbi = 0
        #expect(mdb_dbi_open(txn, nil, 0, &dbi) == 0)
        var key = Array("greeting".utf8)
        var value = Array("hello".utf8)
        key.withUnsafeMutableBytes { k in
            value.withUnsafeMutableBytes { v in
                var kv = MDB_val(mv_size: k.count, mv_data: k.baseAddress)
                var vv = MDB_val(mv_size: v.count, mv_data: v.baseAddress)
                _ = mdb_put(txn, dbi, &kv, &vv, 0)
            }
        }
        #expect(mdb_txn_commit(txn) == 0)
        mdb_env_close(env)
        let error = try openError(url)
        #expect(error.code == .notAStore && error.message.contains("not an ObjectStack store"))
    }

    @Test("a missing folder names the folder; an unreadable file names the file")
    func unreachable() throws {
        let folder = try ScratchFolder()
        let missing = folder.url.appendingPathComponent("nope/store.lmdb")
        let error = try openError(missing)
        #expect(error.code == .ioFailure && error.message.contains(folder.url.appendingPathComponent("nope").path))
        let url = folder.file()
        try makeStore(url)
        try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: url.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path) }
        // The superuser reads any file, so the permission check only shows for ordinary users.
        if getuid() != 0 {
            let unreadable = try openError(url)
            #expect(unreadable.code == .readOnly && unreadable.message.contains(url.path))
        }
    }

    @Test(
        "a damaged record of the rows' older layouts is refused as corrupt, naming it; a layout from another model too")
    func damagedRowLayouts() throws {
        let folder = try ScratchFolder()
        let url = folder.file()
        try makeStore(url)
        // Adding `extra` is made in place: the rows stay as they are and the store records their layout.
        let migrator = StoreMigrator(
            type: .lmdb, url: url, destinationModel: try ItemModel.make(extraAttribute: true),
            sourceModels: [try ItemModel.make()])
        #expect(try migrator.migrateIfNeeded())
        #expect(!FileManager.default.fileExists(atPath: url.path + ".migrating"))
        let migrated = try LMDBStack(url, model: try ItemModel.make(extraAttribute: true))
        #expect((migrated.store as? LMDBStore)?.codec.layouts.layouts.map(\.fieldCount) == [9])
        try migrated.coordinator.remove(migrated.store)

        func overwriteLayouts(_ value: [UInt8]) {
            var env: OpaquePointer?
            #expect(mdb_env_create(&env) == 0)
            _ = mdb_env_set_maxdbs(env, 64)
            #expect(mdb_env_open(env, url.path, UInt32(MDB_NOSUBDIR), 0o644) == 0)
            var txn: OpaquePointer?
            #expect(mdb_txn_begin(env, nil, 0, &txn) == 0)
            var dbi: MDB_dbi = 0
            #expect(mdb_dbi_open(txn, LMDBSchema.metaName, 0, &dbi) == 0)
            var key = Array("rowLayout/0/9".utf8)
            var bytes = value
            key.withUnsafeMutableBytes { k in
                bytes.withUnsafeMutableBytes { v in
                    var kv = MDB_val(mv_size: k.count, mv_data: k.baseAddress)
                    var vv = MDB_val(mv_size: v.count, mv_data: v.baseAddress)
                    #expect(mdb_put(txn, dbi, &kv, &vv, 0) == 0)
                }
            }
            #expect(mdb_txn_commit(txn) == 0)
            mdb_env_close(env)
        }
        overwriteLayouts([0x03, 0xff, 0x00])
        let damaged = try openError(url, model: try ItemModel.make(extraAttribute: true))
        #expect(damaged.code == .corrupt)
        #expect(damaged.message.contains("older row layouts") && damaged.message.contains("rowLayout/0/9"))
        // Well formed, but one source short of the entity's ten stored properties.
        let codec = LMDBRowCodec(entityTable: ["Item"], model: try ItemModel.make(), storeIdentifier: "x", url: url)
        var short: [UInt8] = []
        codec.encodeValues((0..<9).flatMap { [StoreValue.integer(0), .integer(Int64($0))] }, into: &short)
        overwriteLayouts(short)
        let misfit = try openError(url, model: try ItemModel.make(extraAttribute: true))
        #expect(misfit.code == .corrupt && misfit.message.contains("does not fit"))
    }
}
