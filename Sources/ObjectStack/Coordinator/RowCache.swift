import Synchronization

/// The coordinator's cache of rows, shared by every context on it.
///
/// Each entry counts the contexts that have the object registered; it leaves the cache when the last one
/// lets go, so the cache holds what contexts hold and no more.
struct RowCache {
    private struct Entry {
        var snapshot: RowSnapshot
        var references: Int
        /// When the row was read or written, for `stalenessInterval`.
        var storedAt: RowCacheInstant
    }

    private var entries: [ObjectKey: Entry] = [:]
    /// Counts the changes to cached rows (a newer version stored, a row dropped), readable without the lock.
    let generation = RowCacheGeneration()

    /// The cached row of an object, if it is no older than `maximumAge` seconds (any age for nil).
    func snapshot(for id: ManagedObjectID, maximumAge: Double? = nil) -> RowSnapshot? {
        guard let entry = entries[ObjectKey(id)] else { return nil }
        if let maximumAge, entry.storedAt.isOlder(than: maximumAge) { return nil }
        return entry.snapshot
    }

    /// The cached row of an object, if it is no older than `maximumAge` seconds, with one more holder counted:
    /// a context registering the object looks it up and retains it in one lookup.
    mutating func retainedSnapshot(for id: ManagedObjectID, maximumAge: Double?) -> RowSnapshot? {
        guard let index = entries.index(forKey: ObjectKey(id)) else { return nil }
        let entry = entries.values[index]
        if let maximumAge, entry.storedAt.isOlder(than: maximumAge) { return nil }
        entries.values[index].references += 1
        return entry.snapshot
    }

    /// The number of cached rows.
    var count: Int { entries.count }

    /// Stores a row that was just read or written; an older version never replaces a newer one.
    mutating func store(_ snapshot: RowSnapshot, for id: ManagedObjectID) {
        store(snapshot, for: id, at: .now)
    }

    /// Stores the rows of one read or write: room for all at once, and one reading of the clock.
    mutating func store<Rows: Collection>(_ rows: Rows) where Rows.Element == (ManagedObjectID, RowSnapshot) {
        entries.reserve(entries.count + rows.count)
        let now = RowCacheInstant.now
        for (id, snapshot) in rows { store(snapshot, for: id, at: now) }
    }

    /// Makes room for `count` more rows.
    mutating func reserveCapacity(_ count: Int) { entries.reserve(entries.count + count) }

    /// Stores a row read or written at `now`, counting `references` more holders of it (a fetching context's
    /// hold on an object it has just registered).
    mutating func store(
        _ snapshot: RowSnapshot, for id: ManagedObjectID, at now: RowCacheInstant, references: Int = 0
    ) {
        // One hash per row, found or not: a new row's entry is inserted by the lookup that missed (a lookup and
        // then an insert hashed each new row of a save twice). A new entry starts at this row with no holders,
        // which the update below then brings to the same state as an existing one.
        entries.reserveForInsert()
        Self.update(
            &entries[ObjectKey(id), default: Entry(snapshot: snapshot, references: 0, storedAt: now)],
            with: snapshot, references: references, at: now, generation: generation)
    }

    /// Brings an entry up to a row read or written at `now`.
    @inline(__always)
    private static func update(
        _ entry: inout Entry, with snapshot: RowSnapshot, references: Int, at now: RowCacheInstant,
        generation: RowCacheGeneration
    ) {
        entry.references += references
        let cached = entry.snapshot.version
        // The same version is the same row: the entry keeps its snapshot, so a fault holding the one its fetch
        // read is still current.
        if cached < snapshot.version {
            entry.snapshot = snapshot
            generation.advance()
        }
        if cached <= snapshot.version { entry.storedAt = now }
    }

    /// Counts one more context holding the object, storing its row if given.
    mutating func retain(_ id: ManagedObjectID, snapshot: RowSnapshot?) {
        if let snapshot { store(snapshot, for: id) }
        if let index = entries.index(forKey: ObjectKey(id)) { entries.values[index].references += 1 }
    }

    /// Counts one context fewer; the row leaves when none holds it.
    mutating func release(_ id: ManagedObjectID) {
        guard let index = entries.index(forKey: ObjectKey(id)) else { return }
        entries.values[index].references -= 1
        if entries.values[index].references <= 0 {
            entries.remove(at: index)
            generation.advance()
        }
    }

    /// Replaces an object's cached row with a newer one written behind the cache's back (a batch request), keeping
    /// its holders; an object whose row is not cached stays out.
    mutating func refresh(_ snapshot: RowSnapshot, for id: ManagedObjectID, at now: RowCacheInstant) {
        guard let index = entries.index(forKey: ObjectKey(id)),
            entries.values[index].snapshot.version < snapshot.version
        else { return }
        entries.values[index].snapshot = snapshot
        entries.values[index].storedAt = now
        generation.advance()
    }

    /// Drops a deleted object's row.
    mutating func remove(_ id: ManagedObjectID) {
        if entries.removeValue(forKey: ObjectKey(id)) != nil { generation.advance() }
    }
}

/// The row cache's change counter: a fault that kept the row its fetch read may use it while the counter
/// has not moved since before that fetch, without taking the cache's lock.
final class RowCacheGeneration: Sendable {
    private let value = Atomic<UInt64>(0)

    /// The current count.
    var current: UInt64 { value.load(ordering: .acquiring) }

    /// Counts one change to the cached rows.
    func advance() { value.add(1, ordering: .releasing) }
}
