import CSQLite
import Foundation
import ObjectStack
import ObjectStackSQLite
import Testing

/// The SQLite store's `durability` option and its integrity check.
@Suite("SQLite durability and integrity")
struct SQLiteDurabilityTests {
    @Test(
        "durability full, normal and off set synchronous FULL, NORMAL and OFF; none keeps NORMAL",
        arguments: [(Durability?.none, 1), (.full, 2), (.normal, 1), (.off, 0)])
    func levels(durability: Durability?, level: Int) throws {
        let folder = try SQLiteStoreTests.directory()
        var description = StoreDescription(type: .sqlite, url: folder.appendingPathComponent("a.sqlite"))
        description.durability = durability
        #expect(try SQLiteStoreTests.open(description.url, options: description.options).synchronousLevel() == level)
    }

    @Test("an unknown durability, or one that disagrees with synchronous, is refused naming the values")
    func refused() throws {
        let folder = try SQLiteStoreTests.directory()
        let unknown = try #require(throws: StoreError.self) {
            try SQLiteStoreTests.open(folder.appendingPathComponent("a.sqlite"), options: ["durability": "sometimes"])
        }
        #expect(unknown.code == .invalidOption && unknown.message.contains("'sometimes'"))
        #expect(unknown.message.contains("full, normal or off"))
        let clash = try #require(throws: StoreError.self) {
            try SQLiteStoreTests.open(
                folder.appendingPathComponent("b.sqlite"), options: ["durability": "normal", "synchronous": "FULL"])
        }
        #expect(clash.code == .invalidOption && clash.message.contains("disagree"))
        #expect(
            try SQLiteStoreTests.open(
                folder.appendingPathComponent("c.sqlite"), options: ["durability": "full", "synchronous": "full"]
            ).synchronousLevel() == 2)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("a.sqlite").path))
    }

    @Test("the integrity check passes a whole store and names a damaged index")
    func integrity() throws {
        let url = try SQLiteStoreTests.storeFile(items: 200)
        #expect(try SQLiteStoreTests.open(url).checkIntegrity() == [])
        // Zero the uniqueness constraint's index root page: the tables still read, the index does not.
        var db: OpaquePointer?
        #expect(sqlite3_open(url.path, &db) == SQLITE_OK)
        var statement: OpaquePointer?
        sqlite3_prepare_v2(
            db, "SELECT rootpage FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ZITEM'", -1, &statement, nil)
        #expect(sqlite3_step(statement) == SQLITE_ROW)
        let page = Int(sqlite3_column_int64(statement, 0))
        sqlite3_finalize(statement)
        sqlite3_prepare_v2(db, "PRAGMA page_size", -1, &statement, nil)
        #expect(sqlite3_step(statement) == SQLITE_ROW)
        let pageSize = Int(sqlite3_column_int64(statement, 0))
        sqlite3_finalize(statement)
        sqlite3_close(db)
        let handle = try FileHandle(forUpdating: url)
        try handle.seek(toOffset: UInt64((page - 1) * pageSize))
        try handle.write(contentsOf: Data(repeating: 0, count: pageSize))
        try handle.close()
        let problems = try SQLiteStoreTests.open(url).checkIntegrity()
        #expect(!problems.isEmpty)
    }
}
