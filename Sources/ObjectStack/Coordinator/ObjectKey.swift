/// An object ID as a hash-table key: the ID with its hash held inline.
///
/// Looking an ID up in a table of 100,000 compares it with the keys met on the way, and comparing two
/// `ManagedObjectID`s reads both objects: a cache miss per probe, which was a tenth of registering fetched
/// objects. Here a probe that meets another ID is told apart by the inline hash (a full 64-bit hash, so two IDs
/// rarely share it); only a match reads the IDs.
struct ObjectKey: Hashable {
    let id: ManagedObjectID
    private let hash: Int

    /// The key of `id`.
    @inline(__always)
    init(_ id: ManagedObjectID) {
        self.id = id
        hash = id.runHash
    }

    static func == (lhs: ObjectKey, rhs: ObjectKey) -> Bool {
        lhs.hash == rhs.hash && lhs.id == rhs.id
    }

    func hash(into hasher: inout Hasher) { hasher.combine(hash) }

    /// The ID's buckets, from the inline run hash: runs of keys stay together, and a table that grows rehashes
    /// its keys without reading the IDs (`ManagedObjectID.bucketHash(runHash:seed:)`).
    func _rawHashValue(seed: Int) -> Int { ManagedObjectID.bucketHash(runHash: hash, seed: seed) }
}
