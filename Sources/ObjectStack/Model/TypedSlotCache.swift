import Synchronization

/// An entity's slots of typed (`@Attribute`) properties by the address of their names (`AttributeName`): a
/// typed read compares words, without the name's bytes or a hash.
///
/// Filled as names are first met: a miss finds the slot by the name's string and publishes a new table with it
/// (compare-and-swap), so reads never lock. A table replaced stays alive, linked from its successor, for readers
/// still looking at it; an entity has only as many tables as its class has typed properties.
final class TypedSlotCache: Sendable {
    /// Names and their slots in an open-addressed table of their own buffers: a read through a table it does not
    /// retain then retains nothing (reading arrays from it retained and released each array per typed read), and
    /// finds its name in about one comparison (a scan of the names compared half of them, and its exit, which
    /// differs per property, was mispredicted on most reads).
    private final class Table: @unchecked Sendable {
        // @unchecked: the buffers are written once, in `init`, and only read after the table is published.
        /// Names by bucket, 0 for an empty bucket (no name's bits are 0: an address, or a scalar with the top bit).
        let names: UnsafeMutableBufferPointer<UInt>
        let slots: UnsafeMutableBufferPointer<AttributeSlot>
        /// How far to shift a name's multiplied bits for its bucket: 64 less the table's bits.
        let shift: UInt
        let previous: Table?

        init(entries: [(name: UInt, slot: AttributeSlot)], previous: Table?) {
            // At most half full, so a name is found at its bucket or the next few.
            var bits: UInt = 3
            while 1 << bits < 2 * entries.count { bits += 1 }
            let size = 1 << bits
            names = .allocate(capacity: size)
            names.initialize(repeating: 0)
            slots = .allocate(capacity: size)
            shift = UInt(UInt.bitWidth) - bits
            for entry in entries {
                var bucket = Self.bucket(of: entry.name, shift: shift)
                while names[bucket] != 0 { bucket = (bucket + 1) & (size - 1) }
                names[bucket] = entry.name
                (slots.baseAddress! + bucket).initialize(to: entry.slot)
            }
            self.previous = previous
        }

        /// The names the table holds, with their slots: what the next table starts from.
        var entries: [(name: UInt, slot: AttributeSlot)] {
            names.indices.filter { names[$0] != 0 }.map { (names[$0], slots[$0]) }
        }

        deinit {
            names.deallocate()
            slots.deallocate()
        }

        /// A name's first bucket: Fibonacci hashing, as the names' addresses differ in middle bits.
        @inline(__always)
        static func bucket(of name: UInt, shift: UInt) -> Int {
            Int(truncatingIfNeeded: (name &* 0x9E37_79B9_7F4A_7C15) &>> shift)
        }

        /// The slot of `name`, if the table has it.
        @inline(__always)
        func slot(for name: UInt) -> AttributeSlot? {
            let mask = names.count &- 1
            var bucket = Self.bucket(of: name, shift: shift)
            while true {
                let found = names[bucket]
                if found == name { return slots[bucket] }
                if found == 0 { return nil }
                bucket = (bucket &+ 1) & mask
            }
        }
    }

    /// The current table, retained once, as its address (0 before the first name is added).
    private let current = Atomic<UInt>(0)

    init() {}

    deinit {
        let bits = current.load(ordering: .acquiring)
        if bits != 0 { Unmanaged<Table>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).release() }
    }

    /// The slot for a name seen before.
    @inline(__always)
    func slot(for name: AttributeName) -> AttributeSlot? {
        let bits = current.load(ordering: .acquiring)
        guard bits != 0 else { return nil }
        // `current` holds the table until it is replaced, and a replaced table lives on as its successor's
        // `previous`: it outlives this read without a retain.
        return Unmanaged<Table>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)._withUnsafeGuaranteedRef { table in
            table.slot(for: name.bits)
        }
    }

    /// Records the slot a name leads to.
    func add(_ name: AttributeName, _ slot: AttributeSlot) {
        while true {
            let bits = current.load(ordering: .acquiring)
            let old =
                bits == 0 ? nil : Unmanaged<Table>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeUnretainedValue()
            if let old, old.slot(for: name.bits) != nil { return }
            // The new table holds the old one (the reference `current` held moves to it), so readers of the old
            // table stay safe.
            let table = Table(entries: (old?.entries ?? []) + [(name.bits, slot)], previous: old)
            let retained = UInt(bitPattern: Unmanaged.passRetained(table).toOpaque())
            if current.compareExchange(expected: bits, desired: retained, ordering: .acquiringAndReleasing).exchanged {
                // `current`'s reference to the old table is now the new table's `previous`.
                if let old { Unmanaged.passUnretained(old).release() }
                return
            }
            Unmanaged.passUnretained(table).release()
        }
    }
}
