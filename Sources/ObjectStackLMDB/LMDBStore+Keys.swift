import CLMDB
import Foundation
import ObjectStack

/// Primary keys a process reserved in the file and has not handed out yet: `next` through `end`.
struct LMDBKeyRange: Sendable {
    var next: Int64
    var end: Int64
    /// How many keys the reservation that made this range took.
    var block: Int64

    var remaining: Int64 { end - next + 1 }
}

extension LMDBStore {
    // MARK: - Primary keys

    /// How many keys a process reserves in the file at first; each later reservation of the hierarchy takes twice
    /// the last, up to `largestKeyReservation`. A reservation is a durable write transaction, so saves take their
    /// keys from a range reserved once rather than committing twice each; keys a killed process held are only a gap.
    static let keyReservationBlock: Int64 = 256
    static let largestKeyReservation: Int64 = 1 << 16

    /// The last key reserved for a hierarchy, in the `meta` database: every process reserves past it.
    static func lastKeyName(_ root: EntityDescription) -> [UInt8] { Array("lastKey/\(root.name)".utf8) }

    /// Hands out `count` consecutive keys of `entity`'s hierarchy: from this process's reserved range when it holds
    /// enough, otherwise from a new range reserved in the file (`reserveKeys(for:count:in:)`), so two processes
    /// writing one store are never given the same key.
    func takeKeys(for entity: EntityDescription, count: Int) throws -> Int64 {
        let root = entity.rootEntity
        return try environment.keyRanges.withLock { ranges in
            let held = ranges[root.name]
            if var range = held, range.remaining >= Int64(count) {
                let first = range.next
                range.next += Int64(count)
                ranges[root.name] = range
                return first
            }
            let next = held.map { min($0.block * 2, Self.largestKeyReservation) } ?? Self.keyReservationBlock
            let block = max(Int64(count), next)
            let first = try environment.write { txn in try reserveKeys(for: root, count: Int(block), in: txn) }
            ranges[root.name] = LMDBKeyRange(next: first + Int64(count), end: first + block - 1, block: block)
            return first
        }
    }

    /// Reserves `count` keys of `entity`'s hierarchy in the write transaction `txn` and returns the first: past the
    /// file's last reserved key and its last row (a store written before reservations were kept in the file).
    func reserveKeys(for entity: EntityDescription, count: Int, in txn: LMDBTransaction) throws -> Int64 {
        let root = entity.rootEntity
        let name = Self.lastKeyName(root)
        var last = try name.withUnsafeBytes { key -> Int64 in
            guard let value = try txn.get(schema.meta, key), value.count == 8 else { return 0 }
            return value.primaryKey(at: 0)
        }
        if let rows = rowsDatabase(of: root) {
            last = max(
                last,
                try txn.withCursor(rows) { cursor -> Int64 in
                    guard let (key, _) = try cursor.move(MDB_LAST), key.count == 8 else { return 0 }
                    return key.primaryKey(at: 0)
                })
        }
        try put(last + Int64(count), as: name, in: txn)
        return last + 1
    }

    /// Makes sure no key up to `key` is handed out for `entity`'s hierarchy (rows copied in with their keys).
    func reserveKeysInFile(through key: Int64, for entity: EntityDescription) throws {
        let root = entity.rootEntity
        try environment.keyRanges.withLock { ranges in
            try environment.write { txn in
                let name = Self.lastKeyName(root)
                let last = try name.withUnsafeBytes { k -> Int64 in
                    guard let value = try txn.get(schema.meta, k), value.count == 8 else { return 0 }
                    return value.primaryKey(at: 0)
                }
                if key > last { try put(key, as: name, in: txn) }
            }
            if var range = ranges[root.name], range.next <= key {
                range.next = key + 1
                ranges[root.name] = range.remaining > 0 ? range : nil
            }
        }
    }

    /// Gives the file back the keys this process reserved and never handed out, where no other process has
    /// reserved since: a store reopened in one process then continues where it stopped. Called as the environment
    /// closes.
    static func returnUnusedKeys(of environment: LMDBEnvironment) {
        let ranges = environment.keyRanges.withLock { ranges in
            defer { ranges = [:] }
            return ranges
        }
        guard let meta = environment.databases.withLock({ $0[LMDBSchema.metaName] }) else { return }
        let unused = ranges.filter { $0.value.remaining > 0 }
        guard !unused.isEmpty else { return }
        // Best effort: keys left reserved are only a gap.
        _ = try? environment.write { txn in
            for (root, range) in unused {
                let name = Array("lastKey/\(root)".utf8)
                let last = try name.withUnsafeBytes { k -> Int64? in
                    guard let value = try txn.get(meta, k), value.count == 8 else { return nil }
                    return value.primaryKey(at: 0)
                }
                guard last == range.end else { continue }
                var bytes: [UInt8] = []
                bytes.appendPrimaryKey(range.next - 1)
                try name.withUnsafeBytes { k in try bytes.withUnsafeBytes { _ = try txn.put(meta, k, $0) } }
            }
        }
    }

    /// The rows database of a hierarchy (shared by its entities), from any of its entities this store holds.
    private func rowsDatabase(of root: EntityDescription) -> MDB_dbi? {
        (schema.layout(of: root) ?? root.selfAndDescendants.lazy.compactMap { self.schema.layout(of: $0) }.first)?.rows
    }

    private func put(_ key: Int64, as name: [UInt8], in txn: LMDBTransaction) throws {
        var bytes: [UInt8] = []
        bytes.appendPrimaryKey(key)
        try name.withUnsafeBytes { k in try bytes.withUnsafeBytes { _ = try txn.put(schema.meta, k, $0) } }
    }
}
