import CSQLite
import Foundation
import LabWorkloads
import ObjectStack
import ObjectStackSQLite

/// Pods through libsqlite3's C API called from Swift, with no object layer: the `swift-direct` implementation (and
/// the schema's creator for the others). Prepared statements, bound values, `sqlite3_step` loops: the same work as
/// `RawSQLitePods`' C, so the ratio between them is Swift's own cost.
///
/// The table is the SQLite store's own `ZPOD` (Core Data's layout: `ZNAME`, `ZVERSION`…), created by the store in the fresh file (same columns, same
/// indexes: `byName` and the `(name, version)` constraint's lookup index), so a ratio against it is the stack's
/// overhead and not a schema difference. WAL and the store's synchronous setting for the cell's durability.
final class DirectSQLitePods: PodEngine {
    private let url: URL
    private var handle: OpaquePointer?
    private var lookupKeys: [Int64] = []
    private var updating: [PodRow] = []
    private let durability: Durability

    /// Opens (creating through the store) the file at `url`; it syncs as the store does at `durability`.
    init(url: URL, durability: Durability = .normal) throws {
        self.url = url
        self.durability = durability
        try Self.createSchema(url)
        try open()
    }

    /// Lets the SQLite store create its file, table and indexes, then closes it.
    static func createSchema(_ url: URL) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try PodModel.make())
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        try coordinator.remove(store)
    }

    private func open() throws {
        var pointer: OpaquePointer?
        guard sqlite3_open_v2(url.path, &pointer, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let pointer else {
            sqlite3_close_v2(pointer)
            throw StoreError(code: .ioFailure, message: "cannot open the raw SQLite file", url: url)
        }
        handle = pointer
        try exec("PRAGMA journal_mode = WAL")
        try exec("PRAGMA synchronous = \(durability.sqliteSynchronous)")
    }

    func close() {
        sqlite3_close_v2(handle)
        handle = nil
    }

    func reopen() throws {
        close()
        try open()
    }

    func insert(_ rows: [PodRow]) throws {
        let insert = try prepare(
            "INSERT INTO ZPOD (Z_PK, Z_ENT, Z_OPT, ZNAME, ZVERSION, ZAUTHORS, ZHOMEPAGE, ZLICENSE, ZSUMMARY, ZDOWNLOADS, ZUPDATED) "
                + "VALUES (?, 1, 1, ?, ?, ?, ?, ?, ?, ?, ?)")
        defer { sqlite3_finalize(insert) }
        try exec("BEGIN IMMEDIATE")
        for row in rows {
            sqlite3_bind_int64(insert, 1, row.id)
            Self.bind(row.name, insert, 2)
            Self.bind(row.version, insert, 3)
            Self.bind(row.authors, insert, 4)
            Self.bind(row.homepage, insert, 5)
            Self.bind(row.license, insert, 6)
            Self.bind(row.summary, insert, 7)
            sqlite3_bind_int64(insert, 8, row.downloads)
            sqlite3_bind_double(insert, 9, row.updated)
            guard sqlite3_step(insert) == SQLITE_DONE else {
                let failure = error()
                try? exec("ROLLBACK")
                throw failure
            }
            sqlite3_reset(insert)
        }
        try exec("COMMIT")
    }

    func fetchAll() throws -> (held: Any, checksum: Int) {
        let select = try prepare(
            "SELECT Z_PK, ZNAME, ZVERSION, ZAUTHORS, ZHOMEPAGE, ZLICENSE, ZSUMMARY, ZDOWNLOADS, ZUPDATED FROM ZPOD")
        defer { sqlite3_finalize(select) }
        var rows: [PodRow] = []
        var checksum = 0
        while sqlite3_step(select) == SQLITE_ROW {
            let row = Self.row(select)
            checksum &+= row.checksum
            rows.append(row)
        }
        return (rows, checksum)
    }

    func prepareLookups(_ keys: [Int64]) throws {
        lookupKeys = keys
    }

    func fetchByID() throws -> Int {
        let select = try prepare(
            "SELECT Z_PK, ZNAME, ZVERSION, ZAUTHORS, ZHOMEPAGE, ZLICENSE, ZSUMMARY, ZDOWNLOADS, ZUPDATED FROM ZPOD WHERE Z_PK = ?"
        )
        defer { sqlite3_finalize(select) }
        try exec("BEGIN")
        defer { try? exec("COMMIT") }
        var checksum = 0
        for key in lookupKeys {
            sqlite3_bind_int64(select, 1, key)
            guard sqlite3_step(select) == SQLITE_ROW else {
                throw StoreError(code: .objectNotFound, message: "raw SQLite: no pod with primary key \(key)", url: url)
            }
            checksum &+= Self.row(select).checksum
            sqlite3_reset(select)
        }
        return checksum
    }

    func fetchSorted(limit: Int) throws -> Int {
        let select = try prepare(
            "SELECT Z_PK, ZNAME, ZVERSION, ZAUTHORS, ZHOMEPAGE, ZLICENSE, ZSUMMARY, ZDOWNLOADS, ZUPDATED FROM ZPOD "
                + "ORDER BY ZNAME, Z_PK LIMIT ?")
        defer { sqlite3_finalize(select) }
        sqlite3_bind_int64(select, 1, Int64(limit))
        var checksum = 0
        while sqlite3_step(select) == SQLITE_ROW { checksum &+= Self.row(select).checksum }
        return checksum
    }

    func prepareUpdate(_ keys: [Int64]) throws {
        let select = try prepare(
            "SELECT Z_PK, ZNAME, ZVERSION, ZAUTHORS, ZHOMEPAGE, ZLICENSE, ZSUMMARY, ZDOWNLOADS, ZUPDATED FROM ZPOD WHERE Z_PK = ?"
        )
        defer { sqlite3_finalize(select) }
        updating = try keys.map { key in
            sqlite3_bind_int64(select, 1, key)
            defer { sqlite3_reset(select) }
            guard sqlite3_step(select) == SQLITE_ROW else {
                throw StoreError(code: .objectNotFound, message: "raw SQLite: no pod with primary key \(key)", url: url)
            }
            return Self.row(select)
        }
    }

    func update(round: Int) throws {
        // The row version goes up as the store's does (optimistic locking), so both write the same columns.
        let update = try prepare("UPDATE ZPOD SET ZDOWNLOADS = ?, ZUPDATED = ?, Z_OPT = Z_OPT + 1 WHERE Z_PK = ?")
        defer { sqlite3_finalize(update) }
        try exec("BEGIN IMMEDIATE")
        for index in updating.indices {
            updating[index].downloads += 1
            updating[index].updated += 1
            sqlite3_bind_int64(update, 1, updating[index].downloads)
            sqlite3_bind_double(update, 2, updating[index].updated)
            sqlite3_bind_int64(update, 3, updating[index].id)
            guard sqlite3_step(update) == SQLITE_DONE else {
                let failure = error()
                try? exec("ROLLBACK")
                throw failure
            }
            sqlite3_reset(update)
        }
        try exec("COMMIT")
    }

    func count(downloadsAbove downloads: Int64) throws -> Int {
        let count = try prepare("SELECT COUNT(*) FROM ZPOD WHERE ZDOWNLOADS > ?")
        defer { sqlite3_finalize(count) }
        sqlite3_bind_int64(count, 1, downloads)
        guard sqlite3_step(count) == SQLITE_ROW else { throw error() }
        return Int(sqlite3_column_int64(count, 0))
    }

    // MARK: - The C API

    private func exec(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw error() }
    }

    private func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else { throw error() }
        return statement
    }

    private func error() -> StoreError {
        StoreError(code: .ioFailure, message: "raw SQLite: \(String(cString: sqlite3_errmsg(handle)))", url: url)
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private static func bind(_ text: String?, _ statement: OpaquePointer, _ index: Int32) {
        guard let text else {
            sqlite3_bind_null(statement, index)
            return
        }
        sqlite3_bind_text(statement, index, text, -1, transient)
    }

    private static func text(_ statement: OpaquePointer, _ column: Int32) -> String? {
        guard let pointer = sqlite3_column_text(statement, column) else { return nil }
        return String(cString: pointer)
    }

    /// The current row of a `SELECT Z_PK, ZNAME, …, ZUPDATED` statement.
    private static func row(_ statement: OpaquePointer) -> PodRow {
        PodRow(
            id: sqlite3_column_int64(statement, 0), name: text(statement, 1) ?? "", version: text(statement, 2) ?? "",
            authors: text(statement, 3) ?? "", homepage: text(statement, 4), license: text(statement, 5),
            summary: text(statement, 6), downloads: sqlite3_column_int64(statement, 7),
            updated: sqlite3_column_double(statement, 8))
    }
}
