import CSQLite
import Foundation
import ObjectStack

/// One SQLite connection with its cache of prepared statements.
///
/// - Note: Not thread-safe: a store keeps its connection in a `LockedValue` and uses it under that lock.
final class SQLiteConnection {
    /// `SQLITE_TRANSIENT`: SQLite copies bound text and blobs before the call returns.
    static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    let handle: OpaquePointer
    let url: URL
    private var cache: [String: SQLiteStatement] = [:]
    /// Primary-key reads' statements (also in `cache`), by the read's identity. The reads belong to the store,
    /// which outlives its connection, so an identity is never reused while its entry is here.
    private var readStatements: [ObjectIdentifier: SQLiteStatement] = [:]
    /// How many statements were compiled, and how many uses were served from the cache.
    private(set) var preparedCount = 0
    private(set) var cacheHits = 0

    /// Opens a connection.
    /// - Parameter readOnly: open without the right to write (and without creating the file); the connection
    ///   neither checkpoints nor deletes the file's WAL when it closes, so reading a file leaves it as it was.
    init(url: URL, readOnly: Bool) throws {
        if readOnly { try Self.recoverHotJournal(url) }
        var pointer: OpaquePointer?
        let flags =
            (readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE))
            | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(url.path, &pointer, flags, nil)
        guard code == SQLITE_OK, let pointer else {
            let message = pointer.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_close_v2(pointer)
            throw SQLiteConnection.storeError(
                code, message: "cannot open the SQLite file: \(message)", url: url,
                detail: nil)
        }
        handle = pointer
        self.url = url
        sqlite3_extended_result_codes(handle, 1)
        if readOnly { _ = objectstack_no_checkpoint_on_close(handle) }
        try SQLiteFunctions.register(on: handle)
    }

    /// Rolls back the transaction a killed writer left in a rollback journal (a file not in WAL mode, such as a
    /// store whose migration was cut short while it was self-contained): a read-only connection cannot, and would
    /// fail every read (`SQLITE_READONLY_ROLLBACK`). Opening the file for writing and reading it is what any SQLite
    /// reader with the right to write does: it puts back the pages the transaction had changed.
    static func recoverHotJournal(_ url: URL) throws {
        let journal = url.path + "-journal"
        guard let size = try? FileManager.default.attributesOfItem(atPath: journal)[.size] as? NSNumber,
            size.intValue > 0, access(url.path, W_OK) == 0
        else { return }
        let writer = try SQLiteConnection(url: url, readOnly: false)
        defer { writer.close() }
        sqlite3_busy_timeout(writer.handle, SQLiteStore.busyTimeoutMilliseconds)
        _ = try writer.scalarText("SELECT COUNT(*) FROM sqlite_master")
    }

    /// Finalizes every statement and closes the connection.
    /// The store file's lock, held while a store's connection is open; released after the connection closes,
    /// because closing its descriptor first would drop SQLite's own `fcntl` locks on the file.
    var fileLock: StoreFileLock?

    func close() {
        cache.removeAll()
        readStatements.removeAll()
        sqlite3_close_v2(handle)
        fileLock?.release()
        fileLock = nil
    }

    /// A cached prepared statement for `sql`, reset and ready to bind.
    func statement(_ sql: String) throws -> SQLiteStatement {
        if let cached = cache[sql] {
            cacheHits += 1
            return cached
        }
        var pointer: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &pointer, nil)
        guard code == SQLITE_OK, let pointer else { throw error(code, sql: sql) }
        preparedCount += 1
        let statement = SQLiteStatement(handle: pointer, sql: sql, connection: self)
        cache[sql] = statement
        return statement
    }

    /// The cached prepared statement of a primary-key read, found by the read's identity rather than by hashing
    /// its SQL.
    func statement(_ read: SQLitePrimaryKeyRead) throws -> SQLiteStatement {
        if let cached = readStatements[ObjectIdentifier(read)] {
            cacheHits += 1
            return cached
        }
        let statement = try statement(read.sql)
        readStatements[ObjectIdentifier(read)] = statement
        return statement
    }

    /// Runs SQL that returns no rows (several statements allowed), without caching.
    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        if code != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_free(message)
            throw SQLiteConnection.storeError(code, message: text, url: url, detail: sql)
        }
    }

    /// Runs a query and returns the first column of the first row as text, or nil.
    func scalarText(_ sql: String, _ bindings: [SQLValue] = []) throws -> String? {
        let statement = try self.statement(sql)
        defer { statement.reset() }
        statement.bind(bindings)
        guard try statement.step(), !statement.isNull(0) else { return nil }
        return statement.text(0)
    }

    /// The error for a failed call, with SQLite's message and the SQL being run.
    func error(_ code: Int32, sql: String?) -> StoreError {
        SQLiteConnection.storeError(code, message: String(cString: sqlite3_errmsg(handle)), url: url, detail: sql)
    }

    /// Maps an SQLite result code to a `StoreError` code.
    static func storeError(_ code: Int32, message: String, url: URL, detail: String?) -> StoreError {
        let storeCode: StoreError.Code
        switch code & 0xff {
        case SQLITE_NOTADB: storeCode = .notAStore
        case SQLITE_CORRUPT: storeCode = .corrupt
        case SQLITE_READONLY, SQLITE_PERM: storeCode = .readOnly
        case SQLITE_BUSY, SQLITE_LOCKED: storeCode = .locked
        case SQLITE_FULL: storeCode = .full
        case SQLITE_IOERR, SQLITE_CANTOPEN: storeCode = .ioFailure
        case SQLITE_CONSTRAINT: storeCode = .constraintConflict
        default: storeCode = .ioFailure
        }
        return StoreError(code: storeCode, message: message, url: url, nativeCode: code, detail: detail)
    }
}
