import CSQLite
import Foundation

/// A store file read with plain SQL, apart from the store: what the tests check the store against.
final class SQLiteFile {
    private var db: OpaquePointer?

    init(_ url: URL) throws {
        guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
            sqlite3_close(db)
            throw CocoaError(.fileReadCorruptFile)
        }
    }

    deinit { sqlite3_close(db) }

    /// Every row, each column as text ("" for NULL).
    func rows(_ sql: String) -> [[String]] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else { return [] }
        defer { sqlite3_finalize(statement) }
        var result: [[String]] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            result.append(
                (0..<sqlite3_column_count(statement)).map {
                    sqlite3_column_text(statement, $0).map { String(cString: $0) } ?? ""
                })
        }
        return result
    }

    /// The first column of every row, as text.
    func texts(_ sql: String) -> [String] { rows(sql).map { $0[0] } }

    /// The first column of every row, as bytes (nil for NULL).
    func blobs(_ sql: String) -> [Data?] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else { return [] }
        defer { sqlite3_finalize(statement) }
        var result: [Data?] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            if sqlite3_column_type(statement, 0) == SQLITE_NULL {
                result.append(nil)
            } else {
                let count = Int(sqlite3_column_bytes(statement, 0))
                result.append(count == 0 ? Data() : Data(bytes: sqlite3_column_blob(statement, 0), count: count))
            }
        }
        return result
    }

    /// Runs a statement.
    @discardableResult
    func execute(_ sql: String) -> Int32 { sqlite3_exec(db, sql, nil, nil, nil) }
}
