import Foundation
import HashTreeCollections

/// The data of an in-memory store, shared by every store opened on the same `memory://NAME` URL.
///
/// Readers copy the state under the lock and work on the copy, so a fetch sees one consistent state and never
/// holds the lock while it evaluates; a save validates and applies under the lock, so it is atomic and
/// isolated. Every table is a persistent structure (`ChunkedSortedArray`, `TreeDictionary`), so a save while a
/// reader holds a copy copies the chunks and trie nodes it changes, never a whole table.
final class InMemoryBacking: Sendable {
    /// A row as the backing keeps it.
    struct Row {
        /// The concrete entity's name.
        var entityName: String
        var snapshot: RowSnapshot {
            didSet { values = snapshot.values }
        }
        /// `snapshot.values`, the same buffer held inline: a scan reads a field with one load fewer (the
        /// snapshot's own cache miss), which is most of a count's time over a table that outgrows the cache.
        private(set) var values: [StoreValue]

        init(entityName: String, snapshot: RowSnapshot) {
            self.entityName = entityName
            self.snapshot = snapshot
            values = snapshot.values
        }
    }

    /// A row under its primary key, ordered by key.
    struct KeyedRow: Comparable {
        let key: Int64
        var row: Row

        static func < (a: KeyedRow, b: KeyedRow) -> Bool { a.key < b.key }
        static func == (a: KeyedRow, b: KeyedRow) -> Bool { a.key == b.key }
    }

    /// An entry of an ordered index: the row's values in the index's columns and its key, ordered as
    /// `ValueComparison.sortOrder` orders the values (case-sensitively), ties by key.
    struct IndexEntry: Comparable {
        let values: [StoreValue]
        let key: Int64

        static func < (a: IndexEntry, b: IndexEntry) -> Bool {
            for (x, y) in zip(a.values, b.values) {
                let order = ValueComparison.sortOrder(x, y, caseInsensitive: false)
                if order != .orderedSame { return order == .orderedAscending }
            }
            return a.key < b.key
        }

        static func == (a: IndexEntry, b: IndexEntry) -> Bool { a.key == b.key && !(a < b) && !(b < a) }
    }

    /// The rows of one entity hierarchy, by primary key (shared by the root and its sub-entities).
    struct Table {
        var rows = ChunkedSortedArray<KeyedRow>()
        var lastKey: Int64 = 0
        /// Per uniqueness constraint ("Entity:a,b"): the owner's key of each value combination.
        var unique: [String: TreeDictionary<[StoreValue], Int64>] = [:]
        /// Per to-one relationship ("Entity.rel"): the keys of rows referring to each target.
        var referrers: [String: TreeDictionary<ManagedObjectID, Set<Int64>>] = [:]
        /// Ordered indexes by `QueryIndex.name`: fetch indexes and uniqueness constraints.
        var indexes: [String: ChunkedSortedArray<IndexEntry>] = [:]

        /// The row under a key.
        /// - Complexity: O(log n).
        func row(_ key: Int64) -> Row? {
            // Keys are read through buffer pointers: `partitionPoint`'s element copies retained the row's three
            // references on every probe, most of a lookup by ID (profile of fetch-by-id).
            let chunks = rows.chunks
            var low = 0
            var high = chunks.count
            while low < high {
                let middle = (low + high) / 2
                if chunks[middle].withUnsafeBufferPointer({ $0[$0.count - 1].key }) >= key {
                    high = middle
                } else {
                    low = middle + 1
                }
            }
            guard low < chunks.count else { return nil }
            return chunks[low].withUnsafeBufferPointer { entries in
                var first = 0
                var last = entries.count
                while first < last {
                    let middle = (first + last) / 2
                    if entries[middle].key >= key { last = middle } else { first = middle + 1 }
                }
                return first < entries.count && entries[first].key == key ? entries[first].row : nil
            }
        }
    }

    /// The links of one join-table relationship, in both directions, in insertion order.
    struct LinkTable {
        var forward: TreeDictionary<ManagedObjectID, [ManagedObjectID]> = [:]
        var backward: TreeDictionary<ManagedObjectID, [ManagedObjectID]> = [:]
    }

    struct State {
        var metadata: StoreMetadata?
        var tables: [String: Table] = [:]
        var links: [String: LinkTable] = [:]
        /// Persistent history, written by stores opened with history tracking on.
        var history = InMemoryHistory()
    }

    let state = LockedValue(State())
    /// How many writes have committed: the change stamp of remote change notifications.
    let writeCount = LockedValue<UInt64>(0)

    private static let registry = LockedValue<[String: WeakBacking]>([:])

    private struct WeakBacking {
        weak var backing: InMemoryBacking?
    }

    /// The backing for a URL: shared for `memory://NAME`, a new private one for any other URL.
    static func backing(for url: URL) -> InMemoryBacking {
        guard url.scheme == "memory", let name = url.host, !name.isEmpty else { return InMemoryBacking() }
        return registry.withLock { registry in
            if let existing = registry[name]?.backing { return existing }
            let backing = InMemoryBacking()
            registry[name] = WeakBacking(backing: backing)
            return backing
        }
    }
}
