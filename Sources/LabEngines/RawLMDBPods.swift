import CLMDB
import CRawEngines
import Foundation
import LabWorkloads
import ObjectStack

/// Pods through liblmdb from C (`CRawEngines`' `lmdb.c`): the `raw` implementation, the floor with no Swift in the
/// timed work.
///
/// The same databases (`rows`, `byName`, `unique`), row format, flags and transactions as `DirectLMDBPods` (the
/// `swift-direct` implementation, the same work written in Swift). Swift only calls one C function per timed
/// operation; the rows to insert are copied into C strings before the clock starts (`prepareInsert`).
/// - Note: Not thread-safe; the workload uses one engine from one thread.
final class RawLMDBPods: PodEngine {
    private let url: URL
    private var handle: OpaquePointer?
    /// `raw-per-lookup`: each `fetch-by-id` lookup in a read transaction of its own, as `existingObject(with:)` does.
    private let perLookup: Bool
    private let durability: Durability
    private var lookupKeys: [Int64] = []
    private var prepared: CPods?
    private var updating: CPods?

    /// Opens (creating) the environment at `url`; with `perLookup`, `fetchByID` reads each key in a read
    /// transaction of its own (one transaction renewed and reset per lookup); it syncs as the store does at
    /// `durability`.
    init(url: URL, perLookup: Bool = false, durability: Durability = .full) throws {
        self.url = url
        self.perLookup = perLookup
        self.durability = durability
        try open()
    }

    private func open() throws {
        var db: OpaquePointer?
        let rc = stacklab_raw_lmdb_open(url.path, UInt32(bitPattern: durability.lmdbFlags), &db)
        handle = db
        try check(rc, "open")
    }

    func close() {
        stacklab_raw_lmdb_close(handle)
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
        try check(stacklab_raw_lmdb_insert(handle, pods.pods, pods.count), "insert")
    }

    func fetchAll() throws -> (held: Any, checksum: Int) {
        var pods: UnsafeMutablePointer<stacklab_pod>?
        var count = 0
        var checksum: Int64 = 0
        let rc = stacklab_raw_lmdb_fetch_all(handle, &pods, &count, &checksum)
        let held = CPods(taking: pods, count: count)
        try check(rc, "fetch-all")
        return (held, Int(checksum))
    }

    func prepareLookups(_ keys: [Int64]) throws {
        lookupKeys = keys
        if perLookup { try check(stacklab_raw_lmdb_prepare_lookups(handle), "mdb_txn_begin") }
    }

    func fetchByID() throws -> Int {
        var checksum: Int64 = 0
        try check(
            lookupKeys.withUnsafeBufferPointer {
                stacklab_raw_lmdb_fetch_by_id(handle, $0.baseAddress, $0.count, perLookup ? 1 : 0, &checksum)
            }, "fetch-by-id")
        return Int(checksum)
    }

    func fetchSorted(limit: Int) throws -> Int {
        var checksum: Int64 = 0
        try check(stacklab_raw_lmdb_fetch_sorted(handle, Int64(limit), &checksum), "fetch-sorted")
        return Int(checksum)
    }

    func prepareUpdate(_ keys: [Int64]) throws {
        let pods = CPods(zeroed: keys.count)
        try check(
            keys.withUnsafeBufferPointer { stacklab_raw_lmdb_load(handle, $0.baseAddress, $0.count, pods.pods) }, "load"
        )
        updating = pods
    }

    func update(round: Int) throws {
        guard let updating else {
            preconditionFailure("update before prepareUpdate: the workload loads the pods first")
        }
        try check(stacklab_raw_lmdb_update(handle, updating.pods, updating.count), "update")
    }

    func count(downloadsAbove downloads: Int64) throws -> Int {
        var count: Int64 = 0
        try check(stacklab_raw_lmdb_count(handle, downloads, &count), "count")
        return Int(count)
    }

    private func check(_ rc: Int32, _ call: String) throws {
        guard rc != MDB_SUCCESS else { return }
        throw StoreError(
            code: rc == MDB_NOTFOUND ? .objectNotFound : .ioFailure, message: "raw LMDB (C): \(call) failed", url: url,
            nativeCode: rc, detail: String(cString: mdb_strerror(rc)))
    }
}
