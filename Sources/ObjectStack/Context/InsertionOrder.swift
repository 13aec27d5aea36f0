/// A context's inserted objects in the order `insert(_:)` took them, kept while that order is the order of their
/// temporary IDs' keys and the list is exactly the context's inserted set.
///
/// A save walks its new objects in key order: the order their permanent keys are handed out in, and the order
/// their memory was allocated in. Sorting the inserted set for it was a pass in hash order (a cache miss per
/// object) and a sort; while this list holds, it is that order already. Any other change to the inserted set
/// (a deletion, an undo, a merge) ends it until the set is empty again.
struct InsertionOrder {
    private(set) var objects: [ManagedObject] = []
    /// Whether `objects` is the inserted set, in key order.
    private(set) var isExact = true
    private var lastKey = Int64.min

    /// Records an object `insert(_:)` is about to add to the inserted set.
    @inline(__always)
    mutating func willInsert(_ object: ManagedObject) {
        guard isExact else { return }
        let id = object.objectID
        guard id.isTemporaryID, id.key > lastKey else { return invalidate() }
        objects.append(object)
        lastKey = id.key
    }

    /// Follows a change of the inserted set, which now holds `count` objects.
    @inline(__always)
    mutating func insertedSetDidChange(count: Int) {
        if count == 0 {
            if !objects.isEmpty || !isExact { self = InsertionOrder() }
        } else if isExact, count != objects.count {
            invalidate()
        }
    }

    private mutating func invalidate() {
        isExact = false
        objects = []
    }
}
