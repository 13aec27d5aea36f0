import Synchronization

/// An entity's slots of typed (`@Attribute`) properties by the address of their names (`AttributeName`): a
/// typed read compares words, without the name's bytes or a hash.
///
/// Filled as names are first met: a miss finds the slot by the name's string and publishes a new table with it
/// (compare-and-swap), so reads never lock. A table replaced stays alive, linked from its successor, for readers
/// still looking at it; an entity has only as many tables as its class has typed properties.
final class TypedSlotCache: Sendable {
    /// Names and their slots, in buffers of their own: a read through a table it does not retain then retains
    /// nothing (reading arrays from it retained and released each array per typed read).
    private final class Table: @unchecked Sendable {
        // @unchecked: the buffers are written once, in `init`, and only read after the table is published.
        let names: UnsafeMutableBufferPointer<UInt>
        let slots: UnsafeMutableBufferPointer<AttributeSlot>
        let previous: Table?

        init(names: [UInt], slots: [AttributeSlot], previous: Table?) {
            self.names = .allocate(capacity: names.count)
            _ = self.names.initialize(from: names)
            self.slots = .allocate(capacity: slots.count)
            _ = self.slots.initialize(from: slots)
            self.previous = previous
        }

        deinit {
            names.deallocate()
            slots.deallocate()
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
            let names = table.names
            for index in names.indices where names[index] == name.bits { return table.slots[index] }
            return nil
        }
    }

    /// Records the slot a name leads to.
    func add(_ name: AttributeName, _ slot: AttributeSlot) {
        while true {
            let bits = current.load(ordering: .acquiring)
            let old =
                bits == 0 ? nil : Unmanaged<Table>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeUnretainedValue()
            if let old, old.names.contains(name.bits) { return }
            // The new table holds the old one (the reference `current` held moves to it), so readers of the old
            // table stay safe.
            let table = Table(
                names: (old.map { Array($0.names) } ?? []) + [name.bits],
                slots: (old.map { Array($0.slots) } ?? []) + [slot], previous: old)
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
