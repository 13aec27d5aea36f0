import CLMDB
import Foundation
import ObjectStack

/// One LMDB transaction, read-only or read-write, with typed get, put, delete and cursors.
///
/// Values returned by `get` and cursors point into the memory map and are valid until the transaction ends.
/// - Note: Not thread-safe: a transaction belongs to the one call that began it.
struct LMDBTransaction {
    let txn: OpaquePointer
    let url: URL

    /// The value stored under `key`, or nil.
    @inline(__always)
    func get(_ dbi: MDB_dbi, _ key: UnsafeRawBufferPointer) throws -> UnsafeRawBufferPointer? {
        var k = stacklab_mdb_val(key.baseAddress, key.count)
        var v = MDB_val()
        let rc = mdb_get(txn, dbi, &k, &v)
        if rc == MDB_NOTFOUND { return nil }
        try LMDBFailure.check(rc, "reading the store failed", url: url)
        return UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size)
    }

    /// The value stored under a primary key, or nil.
    @inline(__always)
    func get(_ dbi: MDB_dbi, primaryKey: Int64) throws -> UnsafeRawBufferPointer? {
        var big = UInt64(bitPattern: primaryKey).bigEndian
        return try withUnsafeBytes(of: &big) { try get(dbi, $0) }
    }

    /// Stores `value` under `key`; returns `MDB_KEYEXIST` (with `existing` set) instead of throwing when
    /// `flags` forbid overwriting. Throws `LMDBMapFull` when the map is full.
    @inline(__always)
    @discardableResult
    func put(
        _ dbi: MDB_dbi, _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, flags: Int32 = 0,
        existing: UnsafeMutablePointer<UnsafeRawBufferPointer?>? = nil
    ) throws -> Int32 {
        var k = stacklab_mdb_val(key.baseAddress, key.count)
        var v = stacklab_mdb_val(value.baseAddress, value.count)
        let rc = mdb_put(txn, dbi, &k, &v, UInt32(bitPattern: flags))
        switch rc {
        case MDB_SUCCESS: return rc
        case MDB_KEYEXIST:
            existing?.pointee = UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size)
            return rc
        case MDB_MAP_FULL: throw LMDBMapFull()
        default: throw LMDBFailure.error(rc, "writing the store failed", url: url)
        }
    }

    /// Removes `key`; returns whether it was there.
    @inline(__always)
    @discardableResult
    func delete(_ dbi: MDB_dbi, _ key: UnsafeRawBufferPointer) throws -> Bool {
        var k = stacklab_mdb_val(key.baseAddress, key.count)
        let rc = mdb_del(txn, dbi, &k, nil)
        if rc == MDB_NOTFOUND { return false }
        if rc == MDB_MAP_FULL { throw LMDBMapFull() }
        try LMDBFailure.check(rc, "deleting from the store failed", url: url)
        return true
    }

    /// The number of entries in a sub-database (from its B-tree's header, without reading them).
    func entryCount(_ dbi: MDB_dbi) throws -> Int {
        var stat = MDB_stat()
        try LMDBFailure.check(mdb_stat(txn, dbi, &stat), "reading the store's statistics failed", url: url)
        return Int(stat.ms_entries)
    }

    /// Runs `body` with a cursor on `dbi`, closing it afterwards.
    func withCursor<T>(_ dbi: MDB_dbi, _ body: (LMDBCursor) throws -> T) throws -> T {
        var cursor: OpaquePointer?
        try LMDBFailure.check(mdb_cursor_open(txn, dbi, &cursor), "opening a cursor failed", url: url)
        defer { mdb_cursor_close(cursor) }
        return try body(LMDBCursor(cursor: cursor!, url: url))
    }
}

/// A cursor over one sub-database, valid inside its transaction.
struct LMDBCursor {
    let cursor: OpaquePointer
    let url: URL

    /// Moves the cursor and returns the entry it lands on, or nil at the end.
    @inline(__always)
    func move(_ op: MDB_cursor_op, key: UnsafeRawBufferPointer? = nil)
        throws -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)?
    {
        var k = stacklab_mdb_val(key?.baseAddress, key?.count ?? 0)
        var v = MDB_val()
        let rc = mdb_cursor_get(cursor, &k, &v, op)
        if rc == MDB_NOTFOUND { return nil }
        try LMDBFailure.check(rc, "reading the store failed", url: url)
        return (
            UnsafeRawBufferPointer(start: k.mv_data, count: k.mv_size),
            UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size)
        )
    }

    /// Deletes the entry under the cursor.
    func deleteCurrent() throws {
        let rc = mdb_cursor_del(cursor, 0)
        if rc == MDB_MAP_FULL { throw LMDBMapFull() }
        try LMDBFailure.check(rc, "deleting from the store failed", url: url)
    }

    /// Visits every entry whose key starts with `prefix`, in key order, until `body` returns false.
    func forEach(
        prefix: UnsafeRawBufferPointer,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        var entry = try move(MDB_SET_RANGE, key: prefix)
        while let (key, value) = entry, key.count >= prefix.count,
            memcmp(key.baseAddress!, prefix.baseAddress!, prefix.count) == 0
        {
            guard try body(key, value) else { return }
            entry = try move(MDB_NEXT)
        }
    }
}

extension UnsafeRawBufferPointer {
    /// The big-endian primary key in the last 8 bytes (index and link keys end with one).
    @inline(__always)
    var trailingPrimaryKey: Int64 {
        Int64(bitPattern: UInt64(bigEndian: loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)))
    }

    /// The big-endian primary key at an offset.
    @inline(__always)
    func primaryKey(at offset: Int) -> Int64 {
        Int64(bitPattern: UInt64(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
    }
}

extension Array where Element == UInt8 {
    /// Appends a primary key in big-endian, so byte order is key order.
    @inline(__always)
    mutating func appendPrimaryKey(_ key: Int64) {
        Swift.withUnsafeBytes(of: UInt64(bitPattern: key).bigEndian) { append(contentsOf: $0) }
    }
}
