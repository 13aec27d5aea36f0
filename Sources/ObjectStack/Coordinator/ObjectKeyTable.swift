import Foundation

/// A hash table of values by `ObjectKey`, filled to seven eighths before it grows: the row cache's table.
///
/// `Dictionary` grows at three quarters full, so 100,000 cached rows took 2^18 buckets of a 16-byte key and a
/// 16-byte entry, 84 bytes a row; here they fit in 2^17, 44 bytes a row. Buckets are found by `ObjectKey`'s hash
/// (runs of 16 neighbouring keys in neighbouring buckets) and probed in steps of 17 (`TableProbe`), over a 16-bit tag
/// per bucket (0 for empty, else 0x8000 and the hash's top 15 bits): a probe reads a key only where its tag matches,
/// which one bucket in 32,768 does by chance. A removal shifts the entries after it back, so no tombstones build up.
///
/// A copy shares the buckets until one side changes them (copy-on-write, as `Dictionary`).
struct ObjectKeyTable<Value> {
    private var storage = Storage(capacity: 0)
    /// The number of keys.
    private(set) var count = 0

    /// The bucket holding `key`, or nil.
    @inline(__always)
    func bucket(of key: ObjectKey) -> Int? {
        let (bucket, found) = storage.find(key, Storage.hash(key))
        return found ? bucket : nil
    }

    /// The value in an occupied bucket (one `bucket(of:)` or `bucket(inserting:_:)` returned, with no change to the
    /// table since).
    subscript(bucket: Int) -> Value {
        @inline(__always) get { storage.values[bucket] }
        @inline(__always) _modify {
            makeUnique()
            yield &storage.values[bucket]
        }
    }

    /// The bucket holding `key`, after inserting it with the value `make` returns if it is not in the table.
    @inline(__always)
    mutating func bucket(inserting key: ObjectKey, _ make: () -> Value) -> Int {
        if count + 1 > TableGrowth.maximumKeys(inBuckets: storage.capacity) {
            grow(to: TableGrowth.buckets(for: TableGrowth.keys(afterFull: count)))
        } else {
            makeUnique()
        }
        let hash = Storage.hash(key)
        let (bucket, found) = storage.find(key, hash)
        if !found {
            storage.tags[bucket] = TableProbe.tag(hash)
            (storage.keys + bucket).initialize(to: key)
            (storage.values + bucket).initialize(to: make())
            count += 1
        }
        return bucket
    }

    /// Removes the key in an occupied bucket, and its value.
    mutating func remove(at bucket: Int) {
        makeUnique()
        storage.remove(at: bucket)
        count -= 1
    }

    /// Makes room for `keys` keys in all.
    mutating func reserve(_ keys: Int) {
        let needed = TableGrowth.buckets(for: keys)
        if needed > storage.capacity { grow(to: needed) }
    }

    /// Moves the entries into `capacity` buckets (after copying them, when a copy of the table shares these).
    private mutating func grow(to capacity: Int) {
        makeUnique()
        storage = storage.moved(capacity: capacity)
    }

    /// Gives the table buckets of its own before a change, each entry in the same bucket as before.
    @inline(__always)
    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.duplicate() }
    }

    /// The buckets, in one zeroed allocation: `capacity` tags, then the keys, then the values; a key and a
    /// value are initialized only where the tag is not 0.
    private final class Storage {
        /// The number of buckets: zero or a power of two.
        let capacity: Int
        let tags: UnsafeMutablePointer<UInt16>
        let keys: UnsafeMutablePointer<ObjectKey>
        let values: UnsafeMutablePointer<Value>
        private let memory: UnsafeMutableRawPointer?

        /// The hash seed: fixed, as the keys are the stores' own numbers, not input an attacker picks.
        private static var seed: Int { 0x2f69_3a1b }

        init(capacity: Int) {
            precondition(capacity == 0 || capacity.nonzeroBitCount == 1, "ObjectKeyTable: a power of two")
            self.capacity = capacity
            let keysStart = (2 * capacity + 15) & ~15
            let valuesStart = Self.aligned(keysStart + capacity * MemoryLayout<ObjectKey>.stride)
            // Zeroed: every tag empty without a pass that writes them (a big table's pages are faulted in as they
            // are first used).
            guard capacity > 0, let memory = calloc(valuesStart + capacity * MemoryLayout<Value>.stride, 1) else {
                precondition(capacity == 0, "ObjectKeyTable: out of memory for \(capacity) buckets")
                self.memory = nil
                tags = UnsafeMutablePointer(bitPattern: MemoryLayout<UInt16>.alignment)!
                keys = UnsafeMutablePointer(bitPattern: MemoryLayout<ObjectKey>.alignment)!
                values = UnsafeMutablePointer(bitPattern: MemoryLayout<Value>.alignment)!
                return
            }
            self.memory = memory
            tags = memory.bindMemory(to: UInt16.self, capacity: capacity)
            keys = (memory + keysStart).bindMemory(to: ObjectKey.self, capacity: capacity)
            values = (memory + valuesStart).bindMemory(to: Value.self, capacity: capacity)
        }

        deinit {
            guard let memory else { return }
            for bucket in 0..<capacity where tags[bucket] != 0 { (values + bucket).deinitialize(count: 1) }
            free(memory)
        }

        private static func aligned(_ offset: Int) -> Int {
            let alignment = Swift.max(MemoryLayout<Value>.alignment, 16)
            return (offset + alignment - 1) / alignment * alignment
        }

        @inline(__always)
        static func hash(_ key: ObjectKey) -> Int { key._rawHashValue(seed: seed) }

        /// The bucket holding `key`, or the empty bucket where it would go.
        @inline(__always)
        func find(_ key: ObjectKey, _ hash: Int) -> (bucket: Int, found: Bool) {
            guard capacity > 0 else { return (0, false) }
            let mask = capacity - 1
            let tag = TableProbe.tag(hash)
            var bucket = hash & mask
            while true {
                let held = tags[bucket]
                if held == 0 { return (bucket, false) }
                if held == tag, keys[bucket] == key { return (bucket, true) }
                bucket = TableProbe.next(bucket, mask: mask)
            }
        }

        /// Empties a bucket, moving back the entries after it whose probe started at or before it.
        func remove(at bucket: Int) {
            let mask = capacity - 1
            (values + bucket).deinitialize(count: 1)
            var hole = bucket
            var next = TableProbe.next(bucket, mask: mask)
            while tags[next] != 0 {
                let home = Self.hash(keys[next]) & mask
                if TableProbe.steps(from: home, to: next, mask: mask)
                    >= TableProbe.steps(from: hole, to: next, mask: mask)
                {
                    tags[hole] = tags[next]
                    (keys + hole).initialize(to: keys[next])
                    (values + hole).moveInitialize(from: values + next, count: 1)
                    hole = next
                }
                next = TableProbe.next(next, mask: mask)
            }
            tags[hole] = 0
        }

        /// A table of `capacity` buckets the keys and values are moved into, without a retain and a release of
        /// each value; this table is left empty.
        func moved(capacity newCapacity: Int) -> Storage {
            let grown = Storage(capacity: newCapacity)
            for bucket in 0..<capacity where tags[bucket] != 0 {
                let target = grown.find(keys[bucket], Self.hash(keys[bucket])).bucket
                grown.tags[target] = tags[bucket]
                tags[bucket] = 0
                (grown.keys + target).initialize(to: keys[bucket])
                (grown.values + target).moveInitialize(from: values + bucket, count: 1)
            }
            return grown
        }

        /// A copy with every entry in the same bucket, so a bucket found before the copy is still the entry's.
        func duplicate() -> Storage {
            let copy = Storage(capacity: capacity)
            for bucket in 0..<capacity where tags[bucket] != 0 {
                copy.tags[bucket] = tags[bucket]
                (copy.keys + bucket).initialize(to: keys[bucket])
                (copy.values + bucket).initialize(to: values[bucket])
            }
            return copy
        }
    }
}
