import Synchronization

/// The coordinator's cache of rows, shared by every context on it.
///
/// Each entry counts the contexts that have the object registered; it leaves the cache when the last one
/// lets go, so the cache holds what contexts hold and no more.
struct RowCache {
    /// A cached row with its holders and the time it was stored, in two words: a table of 100,000 rows has 2^17
    /// buckets (`ObjectKeyTable`), and a third word in each would be 10 bytes a fetched object.
    private struct Entry {
        var snapshot: RowSnapshot
        /// The holders in the low 24 bits, the time stored in the high 40, in ticks of 2^22 nanoseconds (about 4 ms,
        /// the coarse clock's own resolution) since boot: 146 years.
        private var bits: UInt64

        private static let referenceBits: UInt64 = 24
        private static let referenceMask: UInt64 = 1 << referenceBits - 1
        private static let tickShift: Int64 = 22

        init(snapshot: RowSnapshot, references: Int, storedAt: RowCacheInstant) {
            self.snapshot = snapshot
            bits = 0
            self.storedAt = storedAt
            self.references = references
        }

        /// The contexts holding the row. It stops counting up at 2^24 - 1 holders (more contexts than fit in
        /// memory), and a row counted that high stays cached.
        var references: Int {
            get { Int(bits & Self.referenceMask) }
            set {
                let held = UInt64(clamping: newValue)
                let current = bits & Self.referenceMask
                // A saturated count no longer knows how many hold the row: it stays, rather than leave while held.
                guard current != Self.referenceMask else { return }
                bits = bits & ~Self.referenceMask | min(held, Self.referenceMask)
            }
        }

        /// When the row was read or written, for `stalenessInterval`, rounded down to a tick: a row may count as
        /// up to 4 ms older than it is, never younger.
        var storedAt: RowCacheInstant {
            get {
                RowCacheInstant(nanoseconds: Int64(bitPattern: bits >> Self.referenceBits) << Self.tickShift)
            }
            set {
                let ticks = UInt64(max(newValue.nanoseconds, 0) >> Self.tickShift)
                bits = bits & Self.referenceMask | ticks << Self.referenceBits
            }
        }
    }

    private var entries = ObjectKeyTable<Entry>()
    /// Counts the changes to cached rows (a newer version stored, a row dropped), readable without the lock.
    let generation = RowCacheGeneration()

    /// The cached row of an object, if it is no older than `maximumAge` seconds (any age for nil).
    func snapshot(for id: ManagedObjectID, maximumAge: Double? = nil) -> RowSnapshot? {
        guard let bucket = entries.bucket(of: ObjectKey(id)) else { return nil }
        let entry = entries[bucket]
        if let maximumAge, entry.storedAt.isOlder(than: maximumAge) { return nil }
        return entry.snapshot
    }

    /// The cached row of an object, if it is no older than `maximumAge` seconds, with one more holder counted:
    /// a context registering the object looks it up and retains it in one lookup.
    mutating func retainedSnapshot(for id: ManagedObjectID, maximumAge: Double?) -> RowSnapshot? {
        guard let bucket = entries.bucket(of: ObjectKey(id)) else { return nil }
        let entry = entries[bucket]
        if let maximumAge, entry.storedAt.isOlder(than: maximumAge) { return nil }
        entries[bucket].references += 1
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
        let bucket = entries.bucket(inserting: ObjectKey(id)) {
            Entry(snapshot: snapshot, references: 0, storedAt: now)
        }
        Self.update(&entries[bucket], with: snapshot, references: references, at: now, generation: generation)
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
        if let bucket = entries.bucket(of: ObjectKey(id)) { entries[bucket].references += 1 }
    }

    /// Counts one context fewer; the row leaves when none holds it.
    mutating func release(_ id: ManagedObjectID) {
        guard let bucket = entries.bucket(of: ObjectKey(id)) else { return }
        entries[bucket].references -= 1
        if entries[bucket].references <= 0 {
            entries.remove(at: bucket)
            generation.advance()
        }
    }

    /// Replaces an object's cached row with a newer one written behind the cache's back (a batch request), keeping
    /// its holders; an object whose row is not cached stays out.
    mutating func refresh(_ snapshot: RowSnapshot, for id: ManagedObjectID, at now: RowCacheInstant) {
        guard let bucket = entries.bucket(of: ObjectKey(id)), entries[bucket].snapshot.version < snapshot.version
        else { return }
        entries[bucket].snapshot = snapshot
        entries[bucket].storedAt = now
        generation.advance()
    }

    /// Drops a deleted object's row.
    mutating func remove(_ id: ManagedObjectID) {
        guard let bucket = entries.bucket(of: ObjectKey(id)) else { return }
        entries.remove(at: bucket)
        generation.advance()
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
