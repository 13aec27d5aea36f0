import CLMDB
import Foundation

/// Keys gathered for one sub-database during a save, so they can be written in key order.
///
/// Writing index and uniqueness keys in the order the objects come (random for most values) touches pages
/// all over two extra B-trees; sorted, consecutive puts land on the same pages, and keys past the
/// sub-database's last key go in with `MDB_APPEND` (no search, full pages). Keys live in one byte arena.
/// Sorting is by LMDB's default order (memcmp, then shorter first); equal keys keep the order they were
/// added in, so puts of the same key happen in the same order as unsorted.
/// - Note: Not thread-safe; one save uses it.
struct LMDBKeyBatch {
    struct Entry {
        var start: Int32
        var count: Int32
        /// What the caller needs back for this key (the owner's primary key, a position in the request).
        var owner: Int64
        var tag: Int64
    }

    let dbi: MDB_dbi
    private(set) var bytes: [UInt8] = []
    private(set) var entries: [Entry] = []

    init(dbi: MDB_dbi) { self.dbi = dbi }

    var isEmpty: Bool { entries.isEmpty }

    mutating func reserve(keys: Int, bytesPerKey: Int) {
        entries.reserveCapacity(keys)
        bytes.reserveCapacity(keys * bytesPerKey)
    }

    /// Adds a key (copied into the arena).
    @inline(__always)
    mutating func add(_ key: [UInt8], owner: Int64, tag: Int64 = 0) {
        let start = bytes.count
        bytes.append(contentsOf: key)
        entries.append(
            Entry(
                start: Int32(start), count: Int32(key.count),
                owner: owner, tag: tag))
    }

    /// Sorts the entries by key, equal keys in the order they were added.
    mutating func sort() {
        guard entries.count > 1 else { return }
        bytes.withUnsafeBytes { arena in
            // The bytes every key shares need not be compared again and again.
            let first = entries[0]
            var common = Int(first.count)
            for entry in entries.dropFirst() where common > 0 {
                let limit = min(common, Int(entry.count))
                var same = 0
                while same < limit, arena[Int(entry.start) + same] == arena[Int(first.start) + same] { same += 1 }
                common = same
            }
            // Sorted: small (prefix, position) pairs, the prefix deciding most comparisons.
            var order = [SortKey](repeating: SortKey(prefix: 0, position: 0), count: entries.count)
            for index in entries.indices {
                let entry = entries[index]
                var prefix: UInt64 = 0
                let available = Int(entry.count) - common
                for offset in 0..<8 {
                    prefix <<= 8
                    if offset < available { prefix |= UInt64(arena[Int(entry.start) + common + offset]) }
                }
                order[index] = SortKey(prefix: prefix, position: Int32(index))
            }
            let base = arena.baseAddress
            entries.withUnsafeBufferPointer { entries in
                order.withUnsafeMutableBufferPointer { order in
                    order.sort { a, b in
                        if a.prefix != b.prefix { return a.prefix < b.prefix }
                        let result = Self.compare(base, entries[Int(a.position)], entries[Int(b.position)])
                        return result != 0 ? result < 0 : a.position < b.position
                    }
                }
            }
            entries = order.map { entries[Int($0.position)] }
        }
    }

    private struct SortKey {
        var prefix: UInt64
        var position: Int32
    }

    /// LMDB's default key order: memcmp over the shorter length, then the shorter key first.
    @inline(__always)
    private static func compare(_ base: UnsafeRawPointer?, _ a: Entry, _ b: Entry) -> Int {
        guard let base else { return 0 }
        let shorter = Int(min(a.count, b.count))
        let order = memcmp(base + Int(a.start), base + Int(b.start), shorter)
        if order != 0 { return Int(order) }
        return Int(a.count) - Int(b.count)
    }

    /// Visits the entries in their current order with each key's bytes and the flags to put it with:
    /// `MDB_APPEND` for a key past both the sub-database's last key and the previous key, `otherwise` else.
    func forEachInOrder(
        _ txn: LMDBTransaction, otherwise: Int32,
        _ body: (_ entry: Entry, _ key: UnsafeRawBufferPointer, _ flags: Int32) throws -> Void
    ) throws {
        guard !entries.isEmpty else { return }
        // The current last key, copied: pointers into the map move as the transaction writes.
        let last: [UInt8]? = try txn.withCursor(dbi) { cursor in
            guard let (key, _) = try cursor.move(MDB_LAST) else { return nil }
            return Array(key)
        }
        try bytes.withUnsafeBytes { arena in
            var appending = last == nil
            var previous: UnsafeRawBufferPointer?
            for entry in entries {
                let key = UnsafeRawBufferPointer(rebasing: arena[Int(entry.start)..<Int(entry.start + entry.count)])
                if !appending, let last {
                    appending = last.withUnsafeBytes { Self.lexicographicallyLess($0, key) }
                }
                var flags = otherwise
                if appending {
                    if let previous, !Self.lexicographicallyLess(previous, key) {
                        flags = otherwise
                    } else {
                        flags = MDB_APPEND
                    }
                }
                try body(entry, key, flags)
                previous = key
            }
        }
    }

    @inline(__always)
    static func lexicographicallyLess(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        let shorter = min(a.count, b.count)
        if shorter > 0 {
            let order = memcmp(a.baseAddress!, b.baseAddress!, shorter)
            if order != 0 { return order < 0 }
        }
        return a.count < b.count
    }
}
