import CRawEngines
import CSQLite
import Foundation
import LabWorkloads
import ObjectStack

/// Pods through libsqlite3 from C (`CRawEngines`' `sqlite.c`): the `raw` implementation, the floor with no Swift in
/// the timed work.
///
/// The same statements, transactions and reads as `DirectSQLitePods` (the `swift-direct` implementation, the same
/// work written in Swift), on the SQLite store's own `ZPOD` table created by the store in the fresh file. Swift
/// only calls one C function per timed operation; the rows to insert are copied into C strings before the clock
/// starts (`prepareInsert`), as a C program would hold them.
/// - Note: Not thread-safe; the workload uses one engine from one thread.
final class RawSQLitePods: PodEngine {
    private let url: URL
    private var handle: OpaquePointer?
    /// `raw-per-lookup`: each `fetch-by-id` lookup in its own implicit transaction, as `existingObject(with:)` does.
    private let perLookup: Bool
    private let durability: Durability
    private var lookupKeys: [Int64] = []
    private var prepared: CPods?
    private var updating: CPods?

    /// Opens (creating through the store) the file at `url`; with `perLookup`, `fetchByID` reads each key in a
    /// transaction of its own; it syncs as the store does at `durability`.
    init(url: URL, perLookup: Bool = false, durability: Durability = .normal) throws {
        self.url = url
        self.perLookup = perLookup
        self.durability = durability
        try DirectSQLitePods.createSchema(url)
        try open()
    }

    private func open() throws {
        var db: OpaquePointer?
        let rc = stacklab_raw_sqlite_open(url.path, durability.sqliteSynchronous, &db)
        handle = db
        try check(rc)
    }

    func close() {
        stacklab_raw_sqlite_close(handle)
        handle = nil
    }

    func reopen() throws {
        close()
        try open()
    }

    func prepareInsert(_ rows: [PodRow]) { prepared = CPods(rows) }

    func insert(_ rows: [PodRow]) throws {
        let pods = prepared?.count == rows.count ? prepared! : CPods(rows)
        prepared = nil
        try check(stacklab_raw_sqlite_insert(handle, pods.pods, pods.count))
    }

    func fetchAll() throws -> (held: Any, checksum: Int) {
        var pods: UnsafeMutablePointer<stacklab_pod>?
        var count = 0
        var checksum: Int64 = 0
        let rc = stacklab_raw_sqlite_fetch_all(handle, &pods, &count, &checksum)
        let held = CPods(taking: pods, count: count)
        try check(rc)
        return (held, Int(checksum))
    }

    func prepareLookups(_ keys: [Int64]) throws {
        lookupKeys = keys
        if perLookup { try check(stacklab_raw_sqlite_prepare_lookups(handle)) }
    }

    func fetchByID() throws -> Int {
        var checksum: Int64 = 0
        try check(
            lookupKeys.withUnsafeBufferPointer {
                stacklab_raw_sqlite_fetch_by_id(handle, $0.baseAddress, $0.count, perLookup ? 1 : 0, &checksum)
            })
        return Int(checksum)
    }

    func fetchSorted(limit: Int) throws -> Int {
        var checksum: Int64 = 0
        try check(stacklab_raw_sqlite_fetch_sorted(handle, Int64(limit), &checksum))
        return Int(checksum)
    }

    func prepareUpdate(_ keys: [Int64]) throws {
        let pods = CPods(zeroed: keys.count)
        try check(
            keys.withUnsafeBufferPointer { stacklab_raw_sqlite_load(handle, $0.baseAddress, $0.count, pods.pods) })
        updating = pods
    }

    func update(round: Int) throws {
        guard let updating else {
            preconditionFailure("update before prepareUpdate: the workload loads the pods first")
        }
        try check(stacklab_raw_sqlite_update(handle, updating.pods, updating.count))
    }

    func count(downloadsAbove downloads: Int64) throws -> Int {
        var count: Int64 = 0
        try check(stacklab_raw_sqlite_count(handle, downloads, &count))
        return Int(count)
    }

    private func check(_ rc: Int32) throws {
        guard rc != SQLITE_OK else { return }
        let message = String(cString: stacklab_raw_sqlite_message(handle))
        throw StoreError(
            code: rc == SQLITE_NOTFOUND ? .objectNotFound : .ioFailure, message: "raw SQLite (C): \(message)", url: url,
            nativeCode: rc)
    }
}
