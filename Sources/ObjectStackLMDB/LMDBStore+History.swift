import CLMDB
import Foundation
import ObjectStack

/// Where an LMDB store keeps its persistent history: the `history` sub-database (key: the big-endian transaction
/// number, value: the encoded record) and, in `meta`, the highest number a purge deleted.
struct LMDBHistory: Sendable {
    static let databaseName = "history"
    static let purgedKey = Array("historyPurgedThrough".utf8)

    /// The sub-database, nil when the file has none (history never tracked).
    let dbi: MDB_dbi?
    let meta: MDB_dbi

    /// Opens the history sub-database, creating it when `create` (a store opened with history tracking on).
    static func open(_ environment: LMDBEnvironment, meta: MDB_dbi, create: Bool, url: URL) throws -> LMDBHistory {
        let dbi = try environment.databases.withLock { handles -> MDB_dbi? in
            if let known = handles[databaseName] { return known }
            func open(_ txn: LMDBTransaction, _ flags: Int32) throws -> MDB_dbi? {
                var dbi: MDB_dbi = 0
                let rc = mdb_dbi_open(txn.txn, databaseName, UInt32(bitPattern: flags), &dbi)
                if rc == MDB_NOTFOUND { return nil }
                if rc == MDB_MAP_FULL { throw LMDBMapFull() }
                try LMDBFailure.check(rc, "opening sub-database \(databaseName) failed", url: url)
                return dbi
            }
            let found =
                create
                ? try environment.write { try open($0, MDB_CREATE) }
                : try environment.readKeepingHandles { try open($0, 0) }
            if let found { handles[databaseName] = found }
            return found
        }
        return LMDBHistory(dbi: dbi, meta: meta)
    }

    func purgedThrough(_ txn: LMDBTransaction) throws -> Int64 {
        try Self.purgedKey.withUnsafeBytes { key in
            guard let value = try txn.get(meta, key), value.count == 8 else { return 0 }
            return value.primaryKey(at: 0)
        }
    }

    /// The last number handed out: the last transaction's, or the purge mark when every one was deleted.
    func lastSequence(_ txn: LMDBTransaction) throws -> Int64 {
        guard let dbi else { return 0 }
        let last = try txn.withCursor(dbi) { cursor -> Int64 in
            guard let (key, _) = try cursor.move(MDB_LAST), key.count == 8 else { return 0 }
            return key.primaryKey(at: 0)
        }
        return max(last, try purgedThrough(txn))
    }

    /// Writes a record under the next number, inside the write transaction `txn`.
    func append(_ record: StoreHistoryRecord, _ txn: LMDBTransaction) throws {
        guard let dbi else { return }
        var key: [UInt8] = []
        key.appendPrimaryKey(try lastSequence(txn) + 1)
        let bytes = record.encoded()
        try key.withUnsafeBytes { k in
            try bytes.withUnsafeBytes { _ = try txn.put(dbi, k, $0, flags: MDB_APPEND) }
        }
    }
}

extension LMDBStore: StoreHistoryStoring {
    // MARK: - Persistent history

    public func historyTransactions(after sequence: Int64?, since date: Date?) throws -> StoreHistoryRead {
        try checkOpen()
        return try environment.read { txn in
            guard let dbi = history.dbi else { return StoreHistoryRead(transactions: [], purgedThrough: 0) }
            var found: [(sequence: Int64, bytes: [UInt8])] = []
            var start: [UInt8] = []
            start.appendPrimaryKey((sequence ?? 0) + 1)
            try txn.withCursor(dbi) { cursor in
                var entry = try start.withUnsafeBytes { try cursor.move(MDB_SET_RANGE, key: $0) }
                while let (key, value) = entry {
                    if let date, (StoreHistoryRecord.timestamp(ofEncoded: value) ?? .distantPast) <= date {
                        entry = try cursor.move(MDB_NEXT)
                        continue
                    }
                    found.append((key.primaryKey(at: 0), Array(value)))
                    entry = try cursor.move(MDB_NEXT)
                }
            }
            return StoreHistoryRead(transactions: found, purgedThrough: try history.purgedThrough(txn))
        }
    }

    public func deleteHistory(through sequence: Int64?, before date: Date?) throws -> Int {
        try checkOpen()
        guard let dbi = history.dbi else { return 0 }
        return try environment.write { txn in
            var deleted = 0
            var highest: Int64 = 0
            try txn.withCursor(dbi) { cursor in
                var entry = try cursor.move(MDB_FIRST)
                while let (key, value) = entry {
                    let number = key.primaryKey(at: 0)
                    let goes: Bool
                    if let date {
                        goes = (StoreHistoryRecord.timestamp(ofEncoded: value) ?? .distantPast) < date
                    } else {
                        goes = number <= (sequence ?? .max)
                    }
                    // Numbers and timestamps grow together, so the first transaction kept ends the purge.
                    guard goes else { break }
                    try cursor.deleteCurrent()
                    deleted += 1
                    highest = number
                    // After a delete LMDB's MDB_NEXT lands on the entry that followed the deleted one.
                    entry = try cursor.move(MDB_NEXT)
                }
            }
            if deleted > 0, highest > (try history.purgedThrough(txn)) {
                var value: [UInt8] = []
                value.appendPrimaryKey(highest)
                try LMDBHistory.purgedKey.withUnsafeBytes { k in
                    try value.withUnsafeBytes { _ = try txn.put(history.meta, k, $0) }
                }
            }
            return deleted
        }
    }

    public func lastHistorySequence() throws -> Int64? {
        try checkOpen()
        let last = try environment.read { try history.lastSequence($0) }
        return last > 0 ? last : nil
    }
}

extension LMDBStore: StoreChangeObserving {
    /// The ID of the snapshot a new read transaction sees: the last write committed, in any process (LMDB keeps it
    /// in the lock file every process shares). Read through a (recycled) read transaction rather than
    /// `mdb_env_info`: the meta page that call reads is written a moment before readers are given the new
    /// snapshot, so a look in between announced a change whose history a reader could not see yet.
    public func changeStamp() throws -> UInt64 {
        try checkOpen()
        return try environment.read { txn in UInt64(mdb_txn_id(txn.txn)) }
    }
}
