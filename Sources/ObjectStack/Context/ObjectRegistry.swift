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

    /// Gives the objects of `replacements` that are registered their new IDs, re-registering them under those.
    ///
    /// When they are most of the table (the objects a large save inserted), the table is rebuilt under every
    /// object's current ID in one pass of inserts: removing each old key shifted the keys after it in its probe
    /// run back, and the runs of neighbouring keys made that a walk of several entries per removal (7% of saving
    /// 10,000 new objects on LMDB).
    mutating func rekey(_ replacements: [(object: ManagedObject, id: ManagedObjectID)]) {
        guard replacements.count * 2 >= objects.count else {
            for (object, id) in replacements {
                guard objects.removeValue(forKey: ObjectKey(object.objectID)) != nil else { continue }
                object.objectID = id
                objects[ObjectKey(id)] = object
            }
            return
        }
        for (object, id) in replacements where objects[ObjectKey(object.objectID)] === object { object.objectID = id }
        var rebuilt = [ObjectKey: ManagedObject](minimumCapacity: objects.count)
        for object in objects.values { rebuilt[ObjectKey(object.objectID)] = object }
        objects = rebuilt
    }

    /// The registered objects.
    var values: Dictionary<ObjectKey, ManagedObject>.Values { objects.values }
    /// The IDs of the registered objects (each registered under its own ID: a new ID re-registers the object).
    var keys: LazyMapSequence<Dictionary<ObjectKey, ManagedObject>.Values, ManagedObjectID> {
        objects.values.lazy.map(\.objectID)
    }
    var count: Int { objects.count }
    var isEmpty: Bool { objects.isEmpty }
}
