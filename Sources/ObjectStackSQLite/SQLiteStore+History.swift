import CSQLite
import Foundation
import ObjectStack

extension SQLiteStore: StoreHistoryStoring {
    // MARK: - Persistent history

    /// The table of history transactions: a number SQLite never hands out twice (AUTOINCREMENT, so a purge does not
    /// free numbers), the timestamp for date filters, and the encoded record.
    static let historyTableSQL = """
        CREATE TABLE IF NOT EXISTS Z_HISTORY (Z_PK INTEGER PRIMARY KEY AUTOINCREMENT, \
        ZTIMESTAMP REAL NOT NULL, ZRECORD BLOB NOT NULL)
        """
    /// The table that keeps the highest purged transaction number, in its one row: ObjectStack's own, beside
    /// the history table, so that the store's metadata (`Z_PLIST`, which Core Data reads) is never rewritten.
    static let historyPurgeTableSQL =
        "CREATE TABLE IF NOT EXISTS Z_HISTORYPURGE (Z_PK INTEGER PRIMARY KEY, Z_THROUGH INTEGER)"

    /// Creates the history tables on a connection (a store opened with history tracking on).
    static func createHistoryTable(on db: SQLiteConnection) throws {
        try db.execute(historyTableSQL)
        try db.execute(historyPurgeTableSQL)
    }

    /// Writes a history record inside the transaction open on `db`.
    func appendHistory(_ record: StoreHistoryRecord, on db: SQLiteConnection) throws {
        guard tracksHistory else { return }
        let statement = try db.statement("INSERT INTO Z_HISTORY (ZTIMESTAMP, ZRECORD) VALUES (?, ?)")
        defer { statement.reset() }
        statement.bind(SQLValue.double(record.timestamp.timeIntervalSinceReferenceDate), at: 1)
        let bytes = record.encoded()
        bytes.withUnsafeBytes { buffer in
            _ = sqlite3_bind_blob(
                statement.handle, 2, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count),
                SQLiteConnection.transient)
        }
        try statement.run()
    }

    private func hasHistoryTable(_ db: SQLiteConnection) throws -> Bool {
        try db.scalarText("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'Z_HISTORY'") != nil
    }

    private func purgedThrough(_ db: SQLiteConnection) throws -> Int64 {
        guard
            try db.scalarText("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'Z_HISTORYPURGE'") != nil
        else { return 0 }
        return Int64(try db.scalarText("SELECT Z_THROUGH FROM Z_HISTORYPURGE WHERE Z_PK = 1") ?? "") ?? 0
    }

    public func historyTransactions(after sequence: Int64?, since date: Date?) throws -> StoreHistoryRead {
        try withConnection { db in
            // One read transaction: the transactions and the purge mark agree.
            try db.execute("BEGIN")
            defer { try? db.execute("COMMIT") }
            guard try hasHistoryTable(db) else { return StoreHistoryRead(transactions: [], purgedThrough: 0) }
            let statement = try db.statement(
                "SELECT Z_PK, ZRECORD FROM Z_HISTORY WHERE Z_PK > ? AND ZTIMESTAMP > ? ORDER BY Z_PK")
            defer { statement.reset() }
            statement.bindInt(sequence ?? 0, at: 1)
            statement.bind(
                SQLValue.double(date?.timeIntervalSinceReferenceDate ?? -Double.greatestFiniteMagnitude), at: 2)
            var found: [(sequence: Int64, bytes: [UInt8])] = []
            while try statement.step() {
                let count = Int(sqlite3_column_bytes(statement.handle, 1))
                let pointer = sqlite3_column_blob(statement.handle, 1)
                let bytes =
                    pointer.map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? []
                found.append((statement.int(0), bytes))
            }
            return StoreHistoryRead(transactions: found, purgedThrough: try purgedThrough(db))
        }
    }

    public func deleteHistory(through sequence: Int64?, before date: Date?) throws -> Int {
        try withConnection { db in
            try db.inTransaction {
                guard try hasHistoryTable(db) else { return 0 }
                let statement: SQLiteStatement
                if let date {
                    statement = try db.statement("DELETE FROM Z_HISTORY WHERE ZTIMESTAMP < ?")
                    statement.bind(SQLValue.double(date.timeIntervalSinceReferenceDate), at: 1)
                } else {
                    statement = try db.statement("DELETE FROM Z_HISTORY WHERE Z_PK <= ?")
                    statement.bindInt(sequence ?? .max, at: 1)
                }
                defer { statement.reset() }
                try statement.run()
                let deleted = Int(sqlite3_changes(db.handle))
                guard deleted > 0 else { return 0 }
                // Everything below the first transaction kept is gone: a token before it has expired.
                let firstKept = try db.scalarText("SELECT MIN(Z_PK) FROM Z_HISTORY").flatMap { Int64($0) }
                let last = try lastSequence(db) ?? 0
                let purged = max(try purgedThrough(db), (firstKept ?? last + 1) - 1)
                try db.execute(Self.historyPurgeTableSQL)
                let update = try db.statement("INSERT OR REPLACE INTO Z_HISTORYPURGE (Z_PK, Z_THROUGH) VALUES (1, ?)")
                defer { update.reset() }
                update.bindInt(purged, at: 1)
                try update.run()
                return deleted
            }
        }
    }

    private func lastSequence(_ db: SQLiteConnection) throws -> Int64? {
        try db.scalarText("SELECT seq FROM sqlite_sequence WHERE name = 'Z_HISTORY'").flatMap { Int64($0) }
    }

    public func lastHistorySequence() throws -> Int64? {
        try withConnection { db in
            guard try hasHistoryTable(db) else { return nil }
            return try lastSequence(db).flatMap { $0 > 0 ? $0 : nil }
        }
    }
}

extension SQLiteStore: StoreChangeObserving {
    /// SQLite's `PRAGMA data_version` on a connection of its own that never writes: it changes whenever another
    /// connection (this store's, another coordinator's, another process's) commits.
    public func changeStamp() throws -> UInt64 {
        try watchConnection.withLock { watch in
            if watch == nil {
                let connection = try SQLiteConnection(url: url, readOnly: true)
                sqlite3_busy_timeout(connection.handle, Self.busyTimeoutMilliseconds)
                watch = connection
            }
            return UInt64(bitPattern: Int64(try watch!.scalarText("PRAGMA data_version") ?? "") ?? 0)
        }
    }
}
