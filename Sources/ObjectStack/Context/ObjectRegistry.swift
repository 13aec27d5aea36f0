import Foundation

/// A context's registered objects by ID: an open-addressing table of the objects alone, each found through its own
/// `objectID`, with two bytes of that ID's hash beside it.
///
/// A `[ObjectKey: ManagedObject]` kept a 16-byte key beside each 8-byte object, and the key was the object's own ID
/// over again. This table keeps the object and a 16-bit tag: 10 bytes a bucket instead of 24. A probe compares tags,
/// which lie together in a few cache lines; only a tag that matches reads the object's ID (a few dependent loads),
/// which 15 bits of hash make one bucket in 32,768 do by chance (a byte's seven bits, one in 128, cost a merge into
/// 100,000 registered objects a quarter more once the table filled further). Buckets are found by `ObjectKey`'s hash
/// (runs of 16 neighbouring keys in neighbouring buckets, so a fetch in key order writes whole lines in turn), probed
/// in steps of 17 (`TableProbe`), and a removal shifts the entries after it back, so no tombstones build up. The
/// table fills to seven eighths before it grows (`TableGrowth`): 100,000 objects take 2^17 buckets.
///
/// Every object is registered under its current `objectID`: `rekey` moves those whose ID changes.
struct ObjectRegistry {
    private var table = Table(capacity: 0) {
        didSet { buckets = table.buckets }
    }
    /// `table`'s buckets, kept beside it: reading them through the class retained and released it on every probe.
    private var buckets = Table.Buckets.none
    /// The number of registered objects.
    private(set) var count = 0

    /// The object registered under `id`.
    subscript(id: ManagedObjectID) -> ManagedObject? {
        @inline(__always) get {
            let key = ObjectKey(id)
            let (bucket, found) = buckets.find(key, Table.hash(key))
            return found ? buckets.objects[bucket] : nil
        }
        set {
            guard let newValue else {
                removeValue(forKey: id)
                return
            }
            assert(newValue.objectID == id, "an object is registered under its own ID")
            reserveForInsert()
            let key = ObjectKey(id)
            let hash = Table.hash(key)
            let (bucket, found) = buckets.find(key, hash)
            if found {
                buckets.objects[bucket] = newValue
            } else {
                occupy(bucket, hash: hash, with: newValue)
            }
        }
    }

    /// The object registered under `id`, or the one `make` returns, registered by the same lookup (a fetch
    /// registering 100,000 rows looked each up and then inserted it: two probes of a table of megabytes).
    /// - Returns: the object, and whether `make` made it.
    @inline(__always)
    mutating func object(for id: ManagedObjectID, orRegister make: () -> ManagedObject) -> (ManagedObject, Bool) {
        reserveForInsert()
        let key = ObjectKey(id)
        let hash = Table.hash(key)
        let (bucket, found) = buckets.find(key, hash)
        if found, let object = buckets.objects[bucket] { return (object, false) }
        let object = make()
        occupy(bucket, hash: hash, with: object)
        return (object, true)
    }

    /// Forgets the object registered under `id`, returning it.
    @discardableResult
    mutating func removeValue(forKey id: ManagedObjectID) -> ManagedObject? {
        let key = ObjectKey(id)
        guard buckets.find(key, Table.hash(key)).found else { return nil }
        makeUnique()
        let (bucket, _) = buckets.find(key, Table.hash(key))
        count -= 1
        return table.remove(at: bucket)
    }

    /// Makes room for `capacity` objects.
    mutating func reserveCapacity(_ capacity: Int) {
        let needed = TableGrowth.buckets(for: capacity)
        if needed > table.capacity {
            table = table.rehashed(capacity: needed)
        } else {
            makeUnique()
        }
    }

    /// Gives the objects of `replacements` that are registered their new IDs, re-registering them under those.
    ///
    /// When they are most of the table (the objects a large save inserted), the table is rebuilt under every
    /// object's current ID in one pass of inserts: removing each old key shifted the keys after it in its probe
    /// run back, and the runs of neighbouring keys made that a walk of several entries per removal (7% of saving
    /// 10,000 new objects on LMDB).
    mutating func rekey(_ replacements: [(object: ManagedObject, id: ManagedObjectID)]) {
        guard replacements.count * 2 >= count else {
            for (object, id) in replacements {
                guard removeValue(forKey: object.objectID) != nil else { continue }
                object.objectID = id
                self[id] = object
            }
            return
        }
        // A lookup meets an object whose ID already changed as a bucket of another key: the objects not yet
        // looked up are still found, and the rebuild below files every object under its new ID.
        for (object, id) in replacements where self[object.objectID] === object { object.objectID = id }
        table = table.rehashed(capacity: table.capacity)
        // Two objects given one ID would now share a bucket: the count is what the table holds.
        count = (0..<table.capacity).reduce(0) { $0 + (buckets.tags[$1] == 0 ? 0 : 1) }
    }

    /// The registered objects.
    var values: Values { Values(table: table) }
    /// The IDs of the registered objects (each registered under its own ID: a new ID re-registers the object).
    var keys: LazyMapSequence<Values, ManagedObjectID> { values.lazy.map(\.objectID) }
    var isEmpty: Bool { count == 0 }

    /// Stores a new object in an empty bucket `find` gave, under its hash's tag. The bucket holds nil (zero
    /// bits), so the object is put there without releasing what was there.
    @inline(__always)
    private mutating func occupy(_ bucket: Int, hash: Int, with object: ManagedObject) {
        buckets.tags[bucket] = TableProbe.tag(hash)
        (buckets.objects + bucket).initialize(to: object)
        count += 1
    }

    /// Room for one more object before an insert that would fill the table past seven eighths, grown as
    /// `TableGrowth` grows the stack's tables.
    @inline(__always)
    private mutating func reserveForInsert() {
        guard count + 1 > TableGrowth.maximumKeys(inBuckets: buckets.mask + 1) else {
            makeUnique()
            return
        }
        table = table.rehashed(capacity: TableGrowth.buckets(for: TableGrowth.keys(afterFull: count)))
    }

    /// Gives the registry a table of its own before a change (a copy of the registry, or its `values` being
    /// iterated, shares it).
    @inline(__always)
    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&table) { table = table.rehashed(capacity: table.capacity) }
    }

    /// The registered objects, in bucket order; a registry changed while they are iterated gets a table of its own.
    struct Values: Sequence {
        fileprivate let table: Table

        func makeIterator() -> Iterator { Iterator(table: table) }

        /// Walks the buckets, skipping the empty ones.
        struct Iterator: IteratorProtocol {
            fileprivate let table: Table
            fileprivate var bucket = 0

            mutating func next() -> ManagedObject? {
                while bucket < table.capacity {
                    defer { bucket += 1 }
                    if let object = table.objects[bucket] { return object }
                }
                return nil
            }
        }
    }

    /// The buckets: `capacity` 16-bit tags (0 for an empty bucket, else 0x8000 and the hash's top 15 bits) and
    /// `capacity` object references, in one zeroed allocation (a nil reference is zero bits).
    fileprivate final class Table {
        /// The number of buckets: zero or a power of two.
        let capacity: Int
        let tags: UnsafeMutablePointer<UInt16>
        let objects: UnsafeMutablePointer<ManagedObject?>
        private let storage: UnsafeMutableRawPointer?

        /// The buckets' memory, for probing without the class.
        struct Buckets {
            let mask: Int
            let tags: UnsafeMutablePointer<UInt16>
            let objects: UnsafeMutablePointer<ManagedObject?>

            /// No buckets (the empty table's).
            static var none: Buckets {
                Buckets(
                    mask: -1, tags: UnsafeMutablePointer(bitPattern: MemoryLayout<UInt16>.alignment)!,
                    objects: UnsafeMutablePointer(bitPattern: MemoryLayout<ManagedObject?>.alignment)!)
            }

            /// The bucket holding `key`'s object, or the empty bucket where it would go.
            @inline(__always)
            func find(_ key: ObjectKey, _ hash: Int) -> (bucket: Int, found: Bool) {
                guard mask >= 0 else { return (0, false) }
                let tag = TableProbe.tag(hash)
                var bucket = hash & mask
                while true {
                    let held = tags[bucket]
                    if held == 0 { return (bucket, false) }
                    if held == tag, let object = objects[bucket], ObjectKey(object.objectID) == key {
                        return (bucket, true)
                    }
                    bucket = TableProbe.next(bucket, mask: mask)
                }
            }
        }

        var buckets: Buckets {
            capacity == 0 ? .none : Buckets(mask: capacity - 1, tags: tags, objects: objects)
        }

        /// The hash seed: fixed, as the keys are the store's own numbers, not input an attacker picks.
        private static let seed = 0x5bd1_e995

        init(capacity: Int) {
            precondition(capacity == 0 || capacity.nonzeroBitCount == 1, "ObjectRegistry: a power of two")
            self.capacity = capacity
            if capacity > 0 {
                // Zeroed: every tag empty and every reference nil, without a pass that writes them (a big table's
                // pages are then faulted in as they are first used, as `Dictionary`'s are).
                guard let storage = calloc(capacity, 10) else {
                    fatalError("ObjectRegistry: out of memory for \(capacity) buckets")
                }
                self.storage = storage
                tags = storage.bindMemory(to: UInt16.self, capacity: capacity)
                objects = (storage + 2 * capacity).bindMemory(to: ManagedObject?.self, capacity: capacity)
            } else {
                storage = nil
                tags = UnsafeMutablePointer(bitPattern: MemoryLayout<UInt16>.alignment)!
                objects = UnsafeMutablePointer(bitPattern: MemoryLayout<ManagedObject?>.alignment)!
            }
        }

        deinit {
            guard let storage else { return }
            objects.deinitialize(count: capacity)
            free(storage)
        }

        @inline(__always)
        static func hash(_ key: ObjectKey) -> Int { key._rawHashValue(seed: seed) }

        /// Empties a bucket, moving back the entries after it whose probe started at or before it.
        func remove(at bucket: Int) -> ManagedObject? {
            let mask = capacity - 1
            let removed = objects[bucket]
            var hole = bucket
            var next = TableProbe.next(bucket, mask: mask)
            while tags[next] != 0 {
                let home = objects[next].map { Self.hash(ObjectKey($0.objectID)) & mask } ?? next
                if TableProbe.steps(from: home, to: next, mask: mask)
                    >= TableProbe.steps(from: hole, to: next, mask: mask)
                {
                    tags[hole] = tags[next]
                    objects[hole] = objects[next]
                    hole = next
                }
                next = TableProbe.next(next, mask: mask)
            }
            tags[hole] = 0
            objects[hole] = nil
            return removed
        }

        /// A table of `capacity` buckets holding these objects, each under its current ID.
        func rehashed(capacity newCapacity: Int) -> Table {
            let grown = Table(capacity: newCapacity)
            for bucket in 0..<capacity {
                guard let object = objects[bucket] else { continue }
                let key = ObjectKey(object.objectID)
                let hash = Self.hash(key)
                let (target, found) = grown.buckets.find(key, hash)
                if !found { grown.tags[target] = TableProbe.tag(hash) }
                grown.objects[target] = object
            }
            return grown
        }
    }
}
