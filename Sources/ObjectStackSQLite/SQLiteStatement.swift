import CSQLite
import Foundation

/// A prepared statement: binds values, steps, and reads columns.
///
/// - Note: Not thread-safe; used only by its connection, under the store's lock.
final class SQLiteStatement {
    let handle: OpaquePointer
    let sql: String
    unowned let connection: SQLiteConnection

    init(handle: OpaquePointer, sql: String, connection: SQLiteConnection) {
        self.handle = handle
        self.sql = sql
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    /// Makes the statement ready for its next use: reset, bindings cleared.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    // MARK: - Binding

    func bind(_ value: SQLValue, at index: Int32) {
        switch value {
        case .null: sqlite3_bind_null(handle, index)
        case .integer(let v): sqlite3_bind_int64(handle, index, v)
        case .double(let v): sqlite3_bind_double(handle, index, v)
        case .text(let v): bindText(v, at: index)
        case .blob(let v): bindBlob(v, at: index)
        }
    }

    func bind(_ values: [SQLValue]) {
        for (offset, value) in values.enumerated() { bind(value, at: Int32(offset + 1)) }
    }

    @inline(__always)
    func bindInt(_ value: Int64, at index: Int32) { sqlite3_bind_int64(handle, index, value) }

    @inline(__always)
    func bindText(_ text: String, at index: Int32) {
        var text = text
        text.withUTF8 { buffer in
            guard let base = buffer.baseAddress, !buffer.isEmpty else {
                _ = sqlite3_bind_text(handle, index, "", 0, nil)
                return
            }
            base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                _ = sqlite3_bind_text(handle, index, $0, Int32(buffer.count), SQLiteConnection.transient)
            }
        }
    }

    func bindBlob(_ data: Data, at index: Int32) {
        data.withUnsafeBytes { buffer in
            _ = sqlite3_bind_blob(
                handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count),
                SQLiteConnection.transient)
        }
    }

    // MARK: - Stepping

    /// Steps once: true when a row is ready, false when done.
    @inline(__always)
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        throw connection.error(code, sql: sql)
    }

    /// Runs the statement to its end, ignoring rows.
    func run() throws {
        defer { reset() }
        while try step() {}
    }

    // MARK: - Reading

    @inline(__always) func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    @inline(__always) func int(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    @inline(__always) func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    @inline(__always)
    func text(_ column: Int32) -> String {
        guard let pointer = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    func blob(_ column: Int32) -> Data {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let pointer = sqlite3_column_blob(handle, column) else { return Data() }
        return Data(bytes: pointer, count: count)
    }
}

/// A value bound to or read from SQL, in SQLite's storage classes.
enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case double(Double)
    case text(String)
    case blob(Data)
}
