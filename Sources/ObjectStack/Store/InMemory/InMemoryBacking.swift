import Foundation

/// The data of an in-memory store, shared by every store opened on the same `memory://NAME` URL.
///
/// Readers copy the state under the lock and work on the copy (copy-on-write makes that cheap), so a fetch
/// sees one consistent state and never holds the lock while it evaluates; a save validates and applies
/// under the lock, so it is atomic and isolated.
final class InMemoryBacking: Sendable {
    /// A row as the backing keeps it.
    struct Row {
        /// The concrete entity's name.
        var entityName: String
        var snapshot: RowSnapshot
    }

    /// The rows of one entity hierarchy, keyed by primary key (shared by the root and its sub-entities).
    struct Table {
        var rows: [Int64: Row] = [:]
        var lastKey: Int64 = 0
        /// Per uniqueness constraint ("Entity:a,b"): the owner's key of each value combination.
        var unique: [String: [[StoreValue]: Int64]] = [:]
        /// Per to-one relationship ("Entity.rel"): the keys of rows referring to each target.
        var referrers: [String: [ManagedObjectID: Set<Int64>]] = [:]
    }

    /// The links of one join-table relationship, in both directions, in insertion order.
    struct LinkTable {
        var forward: [ManagedObjectID: [ManagedObjectID]] = [:]
        var backward: [ManagedObjectID: [ManagedObjectID]] = [:]
    }

    struct State {
        var metadata: StoreMetadata?
        var tables: [String: Table] = [:]
        var links: [String: LinkTable] = [:]
    }

    let state = LockedValue(State())

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
