import CLMDB
import Foundation
import ObjectStack

/// Plain LMDB calls on encoded pod rows: the floor the LMDB store is measured against.
///
/// Same environment flags as the store (`MDB_NOSUBDIR | MDB_NOTLS | MDB_NORDAHEAD`, durable commits), a map
/// sized up front, one sub-database of rows keyed by big-endian primary key.
/// - Note: Not thread-safe; one benchmark thread uses it.
final class PlainLMDB {
    private let env: OpaquePointer
    private var dbi: MDB_dbi = 0
    private let url: URL

    init(url: URL) throws {
        self.url = url
        var handle: OpaquePointer?
        try Self.check(mdb_env_create(&handle), "mdb_env_create", url)
        env = handle!
        mdb_env_set_maxdbs(env, 4)
        mdb_env_set_mapsize(env, 1 << 31)
        try Self.check(mdb_env_open(env, url.path, UInt32(bitPattern: MDB_NOSUBDIR | MDB_NOTLS | MDB_NORDAHEAD), 0o644),
            "mdb_env_open", url)
        try write { txn in try Self.check(mdb_dbi_open(txn, "rows", UInt32(bitPattern: MDB_CREATE), &dbi), "mdb_dbi_open", url) }
    }

    func close() { mdb_env_close(env) }

    /// Every key and value of a sub-database of an LMDB file (opened, read and closed).
    static func readRows(of url: URL, database: String) throws -> [(key: [UInt8], value: [UInt8])] {
        var handle: OpaquePointer?
        try check(mdb_env_create(&handle), "mdb_env_create", url)
        let env = handle!
        defer { mdb_env_close(env) }
        mdb_env_set_maxdbs(env, 64)
        try check(mdb_env_open(env, url.path, UInt32(bitPattern: MDB_NOSUBDIR | MDB_RDONLY | MDB_NOTLS), 0o644),
            "mdb_env_open", url)
        var txn: OpaquePointer?
        try check(mdb_txn_begin(env, nil, UInt32(bitPattern: MDB_RDONLY), &txn), "mdb_txn_begin", url)
        defer { mdb_txn_abort(txn) }
        var dbi: MDB_dbi = 0
        try check(mdb_dbi_open(txn, database, 0, &dbi), "mdb_dbi_open \(database)", url)
        var cursor: OpaquePointer?
        try check(mdb_cursor_open(txn, dbi, &cursor), "mdb_cursor_open", url)
        defer { mdb_cursor_close(cursor) }
        var rows: [(key: [UInt8], value: [UInt8])] = []
        var key = MDB_val(), value = MDB_val()
        var rc = mdb_cursor_get(cursor, &key, &value, MDB_FIRST)
        while rc == MDB_SUCCESS {
            rows.append((Array(UnsafeRawBufferPointer(start: key.mv_data, count: key.mv_size)),
                Array(UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size))))
            rc = mdb_cursor_get(cursor, &key, &value, MDB_NEXT)
        }
        return rows
    }

    /// Puts every row with plain `mdb_put` (no flags) in one write transaction, and commits.
    func putAll(_ rows: [(key: [UInt8], value: [UInt8])]) throws {
        try write { txn in
            for row in rows {
                try row.key.withUnsafeBytes { k in
                    try row.value.withUnsafeBytes { v in
                        var kv = MDB_val(mv_size: k.count, mv_data: UnsafeMutableRawPointer(mutating: k.baseAddress))
                        var vv = MDB_val(mv_size: v.count, mv_data: UnsafeMutableRawPointer(mutating: v.baseAddress))
                        try Self.check(mdb_put(txn, dbi, &kv, &vv, 0), "mdb_put", url)
                    }
                }
            }
        }
    }

    /// Scans every row with a cursor and decodes its eight pod fields; returns the rows decoded.
    func scanDecoding() throws -> Int {
        var pods: [PlainPod] = []
        try read { txn in
            var cursor: OpaquePointer?
            try Self.check(mdb_cursor_open(txn, dbi, &cursor), "mdb_cursor_open", url)
            defer { mdb_cursor_close(cursor) }
            var key = MDB_val(), value = MDB_val()
            var rc = mdb_cursor_get(cursor, &key, &value, MDB_FIRST)
            while rc == MDB_SUCCESS {
                pods.append(PlainPod(UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size)))
                rc = mdb_cursor_get(cursor, &key, &value, MDB_NEXT)
            }
        }
        return pods.count
    }

    /// Reads each key with `mdb_get` in one read transaction, optionally decoding the row.
    func getAll(_ keys: [Int64], decoding: Bool) throws {
        try read { txn in
            var found = 0
            for primaryKey in keys {
                var big = UInt64(bitPattern: primaryKey).bigEndian
                let ok = try withUnsafeMutableBytes(of: &big) { k -> Bool in
                    var kv = MDB_val(mv_size: 8, mv_data: k.baseAddress)
                    var value = MDB_val()
                    let rc = mdb_get(txn, dbi, &kv, &value)
                    if rc == MDB_NOTFOUND { return false }
                    try Self.check(rc, "mdb_get", url)
                    if decoding { _ = PlainPod(UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size)) }
                    return value.mv_size > 0
                }
                if ok { found += 1 }
            }
            if found != keys.count { throw StoreError(code: .objectNotFound, message: "plain mdb_get missed rows", url: url) }
        }
    }

    private func write(_ body: (OpaquePointer) throws -> Void) throws {
        var txn: OpaquePointer?
        try Self.check(mdb_txn_begin(env, nil, 0, &txn), "mdb_txn_begin", url)
        do { try body(txn!) } catch {
            mdb_txn_abort(txn)
            throw error
        }
        try Self.check(mdb_txn_commit(txn), "mdb_txn_commit", url)
    }

    private func read(_ body: (OpaquePointer) throws -> Void) throws {
        var txn: OpaquePointer?
        try Self.check(mdb_txn_begin(env, nil, UInt32(bitPattern: MDB_RDONLY), &txn), "mdb_txn_begin", url)
        defer { mdb_txn_abort(txn) }
        try body(txn!)
    }

    private static func check(_ rc: Int32, _ call: String, _ url: URL) throws {
        guard rc != MDB_SUCCESS else { return }
        throw StoreError(code: .ioFailure, message: "\(call) failed", url: url, nativeCode: rc,
            detail: String(cString: mdb_strerror(rc)))
    }
}

/// A pod row decoded by hand from the LMDB store's row format (see `LMDBStore`): a format byte, a 2-byte
/// entity code, version and field-count varints, then tagged fields (0 null, 1 zig-zag varint integer,
/// 2 eight-byte double, 6 length-prefixed string).
struct PlainPod {
    var name = "", version = "", authors = ""
    var homepage: String?, license: String?, summary: String?
    var downloads: Int64 = 0
    var updated: Double = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        var position = 3
        func varint() -> UInt64 {
            var result: UInt64 = 0, shift: UInt64 = 0
            while position < bytes.count {
                let byte = bytes[position]
                position += 1
                result |= UInt64(byte & 0x7f) << shift
                if byte < 0x80 { break }
                shift += 7
            }
            return result
        }
        func string() -> String? {
            guard position < bytes.count else { return nil }
            let tag = bytes[position]
            position += 1
            guard tag == 6 else { return nil }
            let length = Int(varint())
            let text = String(decoding: UnsafeBufferPointer(
                start: bytes.baseAddress!.advanced(by: position).assumingMemoryBound(to: UInt8.self), count: length),
                as: UTF8.self)
            position += length
            return text
        }
        _ = varint()
        _ = varint()
        name = string() ?? ""
        version = string() ?? ""
        authors = string() ?? ""
        homepage = string()
        license = string()
        summary = string()
        if position < bytes.count, bytes[position] == 1 {
            position += 1
            let zigzag = varint()
            downloads = Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)
        } else {
            position += 1
        }
        if position + 9 <= bytes.count, bytes[position] == 2 {
            updated = Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position + 1, as: UInt64.self)))
        }
    }
}
