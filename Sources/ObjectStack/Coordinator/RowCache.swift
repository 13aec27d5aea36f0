/// The coordinator's cache of rows, shared by every context on it.
///
/// Each entry counts the contexts that have the object registered; it leaves the cache when the last one
/// lets go, so the cache holds what contexts hold and no more.
struct RowCache {
    private struct Entry {
        var snapshot: RowSnapshot
        var references: Int
        /// When the row was read or written, for `stalenessInterval`.
        var storedAt: ContinuousClock.Instant
    }

    private var entries: [ManagedObjectID: Entry] = [:]

    /// The cached row of an object, if it is no older than `maximumAge` seconds (any age for nil).
    func snapshot(for id: ManagedObjectID, maximumAge: Double? = nil) -> RowSnapshot? {
        guard let entry = entries[id] else { return nil }
        if let maximumAge, entry.storedAt.duration(to: .now) > .seconds(maximumAge) { return nil }
        return entry.snapshot
    }

    /// The number of cached rows.
    var count: Int { entries.count }

    /// Stores a row that was just read or written; an older version never replaces a newer one.
    mutating func store(_ snapshot: RowSnapshot, for id: ManagedObjectID) {
        if let existing = entries[id] {
            if existing.snapshot.version <= snapshot.version {
                entries[id]?.snapshot = snapshot
                entries[id]?.storedAt = .now
            }
        } else {
            entries[id] = Entry(snapshot: snapshot, references: 0, storedAt: .now)
        }
    }

    /// Counts one more context holding the object, storing its row if given.
    mutating func retain(_ id: ManagedObjectID, snapshot: RowSnapshot?) {
        if let snapshot { store(snapshot, for: id) }
        entries[id]?.references += 1
    }

    /// Counts one context fewer; the row leaves when none holds it.
    mutating func release(_ id: ManagedObjectID) {
        guard var entry = entries[id] else { return }
        entry.references -= 1
        entries[id] = entry.references > 0 ? entry : nil
    }

    /// Drops a deleted object's row.
    mutating func remove(_ id: ManagedObjectID) {
        entries[id] = nil
    }
}
