/// An object ID as a hash-table key: two words of plain bits (the primary key, and the numbers of the store and the
/// entity's name), with no reference to the ID.
///
/// Looking an ID up in a table of 100,000 compares it with the keys met on the way; comparing two
/// `ManagedObjectID`s read both objects, a cache miss per probe. A key that held the ID also retained it on every
/// insert and released it on every removal: two atomic operations per fetched row in each of the context's
/// registry and the coordinator's row cache, right after writing a cold line of the table. These keys compare two
/// words, hash from the same two, and move as plain bytes when a table grows.
///
/// Two IDs have equal keys exactly when they are equal: the same key, the same store identity (interned), and
/// entities of the same name (`EntityNameNumbers`).
struct ObjectKey: Hashable {
    /// The ID's primary key (for a temporary ID, its process-unique number).
    let key: Int64
    /// The store's number (`StoreIdentity.number`, 0 for temporary IDs) in the high half, the entity name's in
    /// the low half.
    let scope: UInt64

    /// The key of `id`.
    @inline(__always)
    init(_ id: ManagedObjectID) {
        key = id.key
        scope = UInt64(id.store.number) << 32 | UInt64(id.entity.nameNumber)
    }

    static func == (lhs: ObjectKey, rhs: ObjectKey) -> Bool {
        lhs.key == rhs.key && lhs.scope == rhs.scope
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(key)
        hasher.combine(scope)
    }

    /// The key's buckets: the 16 keys of a run (equal but for the key's low four bits) take 16 neighbouring buckets,
    /// and each run lands at a random place, its scope, its run and the table's seed mixed once.
    ///
    /// A fetch registers rows in key order into tables of every registered object: with a random bucket per ID,
    /// each insert wrote a cold cache line of a table of megabytes, and the processor stalled on those writes
    /// at the next atomic reference count (a third of fetching 100,000 objects). Runs of 16 write whole lines in
    /// turn. The low bits still spread the keys of one run over distinct buckets, so they never probe past each
    /// other; runs of different entities or stores meet no more often than random buckets do.
    @inline(__always)
    func _rawHashValue(seed: Int) -> Int {
        let run = (UInt64(bitPattern: key) >> 4) &* 0x9E37_79B9_7F4A_7C15
        let mixed = HashFinalizer.mix(run ^ scope &* 0xC2B2_AE3D_27D4_EB4F ^ UInt64(UInt(bitPattern: seed)))
        return mixed << 4 | Int(key & 15)
    }
}
