import CSQLite
import Foundation

/// A store file read with plain SQL, apart from the store: what the tests check the store against.
public final class SQLiteFile {
    private var db: OpaquePointer?

    /// Opens the file at `url` for reading and writing.
    public init(_ url: URL) throws {
        guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
            sqlite3_close(db)
            throw CocoaError(.fileReadCorruptFile)
        }
    }

    deinit { sqlite3_close(db) }

    /// Every row, each column as text ("" for NULL).
    public func rows(_ sql: String) -> [[String]] {
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
    public func texts(_ sql: String) -> [String] { rows(sql).map { $0[0] } }

    /// The first column of every row, as bytes (nil for NULL).
    public func blobs(_ sql: String) -> [Data?] {
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
    public func execute(_ sql: String) -> Int32 { sqlite3_exec(db, sql, nil, nil, nil) }

    /// Rows per entity of a store in Core Data's layout: each entity table's rows grouped by `Z_ENT`, named through
    /// `Z_PRIMARYKEY` (Core Data's history entities left out).
    public func rowsByEntity() -> [String: Int] {
        var names: [String: String] = [:]
        for row in rows("SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY WHERE Z_ENT < 16000") { names[row[0]] = row[1] }
        var counts: [String: Int] = [:]
        for table in texts("SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'Z[A-Z]*'") {
            for row in rows("SELECT Z_ENT, COUNT(*) FROM \"\(table)\" GROUP BY Z_ENT") {
                if let name = names[row[0]] { counts[name, default: 0] += Int(row[1]) ?? 0 }
            }
        }
        return counts
    }

    /// Rows per entity code (`Z_ENT`) over every entity table of a store in Core Data's layout.
    public func rowsByEntityCode() -> [Int64: Int] {
        var counts: [Int64: Int] = [:]
        for table in texts("SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'Z[A-Z]*'") {
            for row in rows("SELECT Z_ENT, COUNT(*) FROM \"\(table)\" GROUP BY Z_ENT") {
                if let code = Int64(row[0]) { counts[code, default: 0] += Int(row[1]) ?? 0 }
            }
        }
        return counts
    }
}
