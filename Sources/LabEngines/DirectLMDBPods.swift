import CLMDB
import Foundation
import LabWorkloads
import ObjectStack

/// Pods through liblmdb's C API called from Swift, with no object layer: the `swift-direct` implementation.
/// `mdb_put`, `mdb_get` and cursors on rows encoded by hand: the same work as `RawLMDBPods`' C, so the ratio
/// between them is Swift's own cost.
///
/// The same work per pod as the LMDB store does: a row in a `rows` database keyed by big-endian primary key,
/// in the store's row format (`RawLMDBRow`), an entry in a `byName` index (name, then primary key) and a claim
/// on the `(name, version)` uniqueness key (`MDB_NOOVERWRITE`, so a duplicate fails the put). Same environment
/// flags as the store (`MDB_NOSUBDIR | MDB_NOTLS | MDB_NORDAHEAD`), and its sync flag for the cell's durability.
final class DirectLMDBPods: PodEngine {
    private let url: URL
    private var env: OpaquePointer?
    private var rows: MDB_dbi = 0, byName: MDB_dbi = 0, unique: MDB_dbi = 0
    private var lookupKeys: [Int64] = []
    private var updating: [PodRow] = []
    private let durability: Durability

    /// Opens (creating) the environment at `url`; it syncs as the store does at `durability`.
    init(url: URL, durability: Durability = .full) throws {
        self.url = url
        self.durability = durability
        try open()
    }

    private func open() throws {
        var handle: OpaquePointer?
        try check(mdb_env_create(&handle), "mdb_env_create")
        env = handle
        mdb_env_set_maxdbs(handle, 4)
        mdb_env_set_mapsize(handle, 1 << 32)
        try check(
            mdb_env_open(
                handle, url.path, UInt32(bitPattern: MDB_NOSUBDIR | MDB_NOTLS | MDB_NORDAHEAD | durability.lmdbFlags),
                0o644),
            "mdb_env_open")
        try write { txn in
            let create = UInt32(bitPattern: MDB_CREATE)
            try check(mdb_dbi_open(txn, "rows", create, &rows), "mdb_dbi_open rows")
            try check(mdb_dbi_open(txn, "byName", create, &byName), "mdb_dbi_open byName")
            try check(mdb_dbi_open(txn, "unique", create, &unique), "mdb_dbi_open unique")
        }
    }

    func close() {
        mdb_env_close(env)
        env = nil
    }

    func reopen() throws {
        close()
        try open()
    }

    func insert(_ pods: [PodRow]) throws {
        var row: [UInt8] = []
        var key: [UInt8] = []
        try write { txn in
            for pod in pods {
                var primaryKey = UInt64(bitPattern: pod.id).bigEndian
                RawLMDBRow.encode(pod, into: &row)
                try withUnsafeBytes(of: &primaryKey) { k in
                    try put(txn, rows, k, row, flags: 0)
                    key.removeAll(keepingCapacity: true)
                    key.append(contentsOf: pod.name.utf8)
                    key.append(0)
                    key.append(contentsOf: pod.version.utf8)
                    try put(txn, unique, key, k, flags: UInt32(bitPattern: MDB_NOOVERWRITE))
                    key.removeAll(keepingCapacity: true)
                    key.append(contentsOf: pod.name.utf8)
                    key.append(0)
                    key.append(contentsOf: k)
                    try put(txn, byName, key, [], flags: 0)
                }
            }
        }
    }

    func fetchAll() throws -> (held: Any, checksum: Int) {
        var pods: [PodRow] = []
        var checksum = 0
        try read { txn in
            try walk(txn, rows) { key, value in
                let pod = RawLMDBRow.decode(Self.primaryKey(key), value)
                checksum &+= pod.checksum
                pods.append(pod)
                return true
            }
        }
        return (pods, checksum)
    }

    func prepareLookups(_ keys: [Int64]) throws {
        lookupKeys = keys
    }

    func fetchByID() throws -> Int {
        var checksum = 0
        try read { txn in
            for key in lookupKeys { checksum &+= try get(txn, key).checksum }
        }
        return checksum
    }

    func fetchSorted(limit: Int) throws -> Int {
        var checksum = 0
        try read { txn in
            // The byName index in key order (name, then big-endian primary key), each row read by its key.
            var read = 0
            try walk(txn, byName) { key, _ in
                guard read < limit else { return false }
                let primaryKey = Int64(
                    bitPattern: UInt64(bigEndian: key.loadUnaligned(fromByteOffset: key.count - 8, as: UInt64.self)))
                checksum &+= try get(txn, primaryKey).checksum
                read += 1
                return true
            }
        }
        return checksum
    }

    func prepareUpdate(_ keys: [Int64]) throws {
        try read { txn in updating = try keys.map { try get(txn, $0) } }
    }

    func update(round: Int) throws {
        var row: [UInt8] = []
        try write { txn in
            for index in updating.indices {
                updating[index].downloads += 1
                updating[index].updated += 1
                RawLMDBRow.encode(updating[index], into: &row)
                var primaryKey = UInt64(bitPattern: updating[index].id).bigEndian
                try withUnsafeBytes(of: &primaryKey) { try put(txn, rows, $0, row, flags: 0) }
            }
        }
    }

    func count(downloadsAbove downloads: Int64) throws -> Int {
        var count = 0
        try read { txn in
            try walk(txn, rows) { _, value in
                if RawLMDBRow.downloads(value) > downloads { count += 1 }
                return true
            }
        }
        return count
    }

    /// Walks a database in key order with a cursor until `body` returns false or the keys end.
    @inline(__always)
    private func walk(
        _ txn: OpaquePointer, _ dbi: MDB_dbi, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        var cursor: OpaquePointer?
        try check(mdb_cursor_open(txn, dbi, &cursor), "mdb_cursor_open")
        defer { mdb_cursor_close(cursor) }
        var key = MDB_val()
        var value = MDB_val()
        var rc = mdb_cursor_get(cursor, &key, &value, MDB_FIRST)
        while rc == MDB_SUCCESS {
            let more = try body(
                UnsafeRawBufferPointer(start: key.mv_data, count: key.mv_size),
                UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size))
            guard more else { return }
            rc = mdb_cursor_get(cursor, &key, &value, MDB_NEXT)
        }
        if rc != MDB_NOTFOUND { try check(rc, "mdb_cursor_get") }
    }

    // MARK: - The C API

    private static func primaryKey(_ key: UnsafeRawBufferPointer) -> Int64 {
        Int64(bitPattern: UInt64(bigEndian: key.loadUnaligned(as: UInt64.self)))
    }

    private func get(_ txn: OpaquePointer, _ primaryKey: Int64) throws -> PodRow {
        var big = UInt64(bitPattern: primaryKey).bigEndian
        return try withUnsafeMutableBytes(of: &big) { k in
            var kv = MDB_val(mv_size: 8, mv_data: k.baseAddress)
            var value = MDB_val()
            let rc = mdb_get(txn, rows, &kv, &value)
            if rc == MDB_NOTFOUND {
                throw StoreError(
                    code: .objectNotFound, message: "raw LMDB: no pod with primary key \(primaryKey)", url: url)
            }
            try check(rc, "mdb_get")
            return RawLMDBRow.decode(primaryKey, UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size))
        }
    }

    private func put<K: ContiguousBytes, V: ContiguousBytes>(
        _ txn: OpaquePointer, _ dbi: MDB_dbi, _ key: K, _ value: V,
        flags: UInt32
    ) throws {
        try key.withUnsafeBytes { k in
            try value.withUnsafeBytes { v in
                var kv = MDB_val(mv_size: k.count, mv_data: UnsafeMutableRawPointer(mutating: k.baseAddress))
                var vv = MDB_val(mv_size: v.count, mv_data: UnsafeMutableRawPointer(mutating: v.baseAddress))
                try check(mdb_put(txn, dbi, &kv, &vv, flags), "mdb_put")
            }
        }
    }

    private func write(_ body: (OpaquePointer) throws -> Void) throws {
        var txn: OpaquePointer?
        try check(mdb_txn_begin(env, nil, 0, &txn), "mdb_txn_begin")
        do { try body(txn!) } catch {
            mdb_txn_abort(txn)
            throw error
        }
        try check(mdb_txn_commit(txn), "mdb_txn_commit")
    }

    private func read(_ body: (OpaquePointer) throws -> Void) throws {
        var txn: OpaquePointer?
        try check(mdb_txn_begin(env, nil, UInt32(bitPattern: MDB_RDONLY), &txn), "mdb_txn_begin")
        defer { mdb_txn_abort(txn) }
        try body(txn!)
    }

    private func check(_ rc: Int32, _ call: String) throws {
        guard rc != MDB_SUCCESS else { return }
        throw StoreError(
            code: .ioFailure, message: "raw LMDB: \(call) failed", url: url, nativeCode: rc,
            detail: String(cString: mdb_strerror(rc)))
    }
}
