/// A context's registered objects by ID: a table keyed by `ObjectKey`, so a lookup that meets other IDs on
/// its way does not read them, and an insert retains no ID.
struct ObjectRegistry {
    private var objects: [ObjectKey: ManagedObject] = [:]

    /// The object registered under `id`.
    subscript(id: ManagedObjectID) -> ManagedObject? {
        @inline(__always) get { objects[ObjectKey(id)] }
        set { objects[ObjectKey(id)] = newValue }
    }

    /// The object registered under `id`, or the one `make` returns, registered by the same lookup (a fetch
    /// registering 100,000 rows looked each up and then inserted it: two probes of a table of megabytes).
    /// - Returns: the object, and whether `make` made it.
    @inline(__always)
    mutating func object(for id: ManagedObjectID, orRegister make: () -> ManagedObject) -> (ManagedObject, Bool) {
        objects.reserveForInsert()
        var made = false
        let object = Self.current(
            &objects[
                ObjectKey(id),
                default: {
                    made = true
                    return make()
                }()
            ])
        return (object, made)
    }

    @inline(__always)
    private static func current(_ object: inout ManagedObject) -> ManagedObject { object }

    /// Forgets the object registered under `id`, returning it.
    @discardableResult
    mutating func removeValue(forKey id: ManagedObjectID) -> ManagedObject? {
        objects.removeValue(forKey: ObjectKey(id))
    }

    /// Makes room for `capacity` objects.
    mutating func reserveCapacity(_ capacity: Int) { objects.reserve(capacity) }

    /// The registered objects.
    var values: Dictionary<ObjectKey, ManagedObject>.Values { objects.values }
    /// The IDs of the registered objects (each registered under its own ID: a new ID re-registers the object).
    var keys: LazyMapSequence<Dictionary<ObjectKey, ManagedObject>.Values, ManagedObjectID> {
        objects.values.lazy.map(\.objectID)
    }
    var count: Int { objects.count }
    var isEmpty: Bool { objects.isEmpty }
}
