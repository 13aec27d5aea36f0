/// The state of a managed object that most objects never have: transient values, to-many relationships read or
/// changed, the batches of a fetch with a batch size. An object allocates it on first use (`ManagedObject`), so the
/// many that never do (a fetch's plain rows) carry one reference instead of three.
final class ObjectSideState {
    // Unchecked exclusivity, as the object's own fields: an object and its side state are used on its context's
    // queue only.
    /// Values of transient attributes, by property index.
    @exclusivity(unchecked) var transientValues: [Int: StoreValue] = .init()
    /// To-many relationships read or changed so far, by property index.
    @exclusivity(unchecked) var toMany: [Int: ToManyState] = .init()
    /// For a fault from a fetch with a batch size: the fetch's batches, so firing loads the whole batch.
    @exclusivity(unchecked) var faultBatch: FaultBatch?
}
