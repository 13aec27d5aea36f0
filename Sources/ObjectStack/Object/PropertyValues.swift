/// Values of an object's properties by property index, for the few that are set (its unsaved changes).
///
/// One slot per property, allocated on the first value: setting and reading a value is an array access, not
/// a hash of the index, and an object's changes are one allocation instead of a hash table (a dictionary per
/// changed object showed in insert profiles). Reads and writes use the dictionary spelling the object used
/// before, so `changes[index] = nil` removes a value.
///
/// Which slots hold a value is kept in a bit mask beside them, and an empty slot holds `.null` (or, for changes
/// started over the committed row, that row's value: `start(over:)`): the slots are
/// then a plain `[StoreValue]`, which a save hands to the store as a new object's row (`row(count:)`) without
/// copying, so the save neither builds a second array per object nor frees this one value by value.
struct PropertyValues: ExpressibleByDictionaryLiteral, Sequence {
    private var slots: [StoreValue] = []
    /// Bit `i` is set when slot `i` holds a value, for the first 64 slots; inline, so an object's changes stay
    /// one allocation.
    private var lowMask: UInt64 = 0
    /// The same for slots 64 and up, bit `i % 64` of word `i / 64 - 1`; empty for entities of up to 64
    /// properties.
    private var highMask: [UInt64] = []
    /// The number of properties with a value (32 bits, so the flag below fits in the same word).
    private var setCount: Int32 = 0
    /// Whether the empty slots hold the object's committed row rather than `.null` (`start(over:)`): the slots
    /// are then the row an update writes, as a new object's are its row.
    private(set) var isOverCommitted = false
    /// Whether the slots were ever started over a committed row: their empty slots may then hold values, not
    /// `.null`, even once `isOverCommitted` is ended.
    private var holdsCommittedValues = false

    /// The number of properties with a value.
    var count: Int { Int(setCount) }

    init() {}

    /// Creates values from index–value pairs (`[:]` for none).
    init(dictionaryLiteral elements: (Int, StoreValue)...) {
        for (index, value) in elements { self[index] = value }
    }

    /// Whether no property has a value.
    var isEmpty: Bool { count == 0 }

    @inline(__always)
    private func has(_ index: Int) -> Bool {
        if index < 64 { return lowMask & (1 << UInt64(index)) != 0 }
        let word = index >> 6 - 1
        return word < highMask.count && highMask[word] & (1 << UInt64(index & 63)) != 0
    }

    /// Sets or clears the bit of slot `index` (which exists).
    @inline(__always)
    private mutating func mark(_ index: Int, _ set: Bool) {
        let bit: UInt64 = 1 << UInt64(index & 63)
        if index < 64 {
            if set { lowMask |= bit } else { lowMask &= ~bit }
        } else if set {
            highMask[index >> 6 - 1] |= bit
        } else {
            highMask[index >> 6 - 1] &= ~bit
        }
    }

    /// The value of the property at `index`; nil removes it.
    subscript(index: Int) -> StoreValue? {
        // Inlined: every typed read asks first whether the property changed, and a call per read showed.
        @inline(__always) get { has(index) ? slots[index] : nil }
        set {
            if index >= slots.count {
                guard newValue != nil else { return }
                grow(to: index + 1)
            }
            let had = has(index)
            if let newValue {
                slots[index] = newValue
                if !had {
                    mark(index, true)
                    setCount += 1
                }
            } else if had {
                // The committed value is not at hand here: the slots stop being the row (see `remove(_:restoring:)`).
                slots[index] = .null
                isOverCommitted = false
                mark(index, false)
                setCount -= 1
            }
        }
    }

    private mutating func grow(to slotCount: Int) {
        if slots.isEmpty {
            slots = Array(repeating: .null, count: slotCount)
        } else {
            slots.append(contentsOf: repeatElement(.null, count: slotCount - slots.count))
        }
        let words = Swift.max((slotCount + 63) >> 6 - 1, 0)
        if highMask.count < words { highMask.append(contentsOf: repeatElement(0, count: words - highMask.count)) }
    }

    /// Makes room for `propertyCount` properties at once, so the first values do not grow the storage.
    mutating func reserveCapacity(_ propertyCount: Int) {
        if slots.count < propertyCount { grow(to: propertyCount) }
    }

    /// Starts empty changes over an object's committed row, by property index (an entity whose every property
    /// is stored): the slots share the row's storage until the first value is set, and the empty ones keep its
    /// values, so the slots are the updated row (`rowOverCommitted(count:)`) without a second copy at save.
    mutating func start(over committed: [StoreValue]) {
        guard slots.isEmpty else { return }
        slots = committed
        holdsCommittedValues = true
        let words = Swift.max((committed.count + 63) >> 6 - 1, 0)
        if highMask.count < words { highMask.append(contentsOf: repeatElement(0, count: words - highMask.count)) }
        isOverCommitted = true
    }

    /// Removes the value at `index`, putting the committed value back in its slot, so the slots stay the row.
    mutating func remove(_ index: Int, restoring committed: StoreValue) {
        guard isOverCommitted, index < slots.count else {
            self[index] = nil
            return
        }
        guard has(index) else { return }
        slots[index] = committed
        mark(index, false)
        setCount -= 1
    }

    /// Ends `start(over:)`'s promise, when the committed row the slots were started over is replaced.
    mutating func forgetCommitted() {
        isOverCommitted = false
    }

    /// The slots as the row of an object whose changes were started over its committed row: its values with
    /// the changes written over them, sharing this storage; nil unless that holds and there are `count` slots.
    /// `changedBits` gets the slots that hold a change (for up to 64 slots).
    func rowOverCommitted(count: Int, changedBits: inout UInt64?) -> [StoreValue]? {
        guard isOverCommitted, slots.count == count else { return nil }
        changedBits = count <= 64 ? lowMask : nil
        return slots
    }

    /// The slots as a row of `count` values, `.null` where no value is set, sharing this storage: nil unless
    /// there are exactly `count` slots. For an entity whose every property is stored, property and stored
    /// indexes coincide, so this is a new object's row.
    func row(count: Int) -> [StoreValue]? {
        !holdsCommittedValues && slots.count == count ? slots : nil
    }

    /// Calls `body` with each index that has a value and the value, in index order, without the iterator's
    /// copy and closure (a save's pass over 100,000 objects' changes).
    @inline(__always)
    func forEach(_ body: (_ index: Int, _ value: StoreValue) throws -> Void) rethrows {
        guard count > 0 else { return }
        for index in slots.indices where has(index) { try body(index, slots[index]) }
    }

    /// Whether the value at `index` is `.null`, read in place (no copy of a string to retain and release); nil
    /// when the property has no value here.
    @inline(__always)
    func isNull(at index: Int) -> Bool? {
        guard has(index) else { return nil }
        if case .null = slots[index] { return true }
        return false
    }

    /// The indices that have a value, in index order.
    var keys: [Int] { slots.indices.filter(has) }

    /// The index–value pairs, in index order.
    func makeIterator() -> AnyIterator<(key: Int, value: StoreValue)> {
        var position = 0
        let values = self
        return AnyIterator {
            while position < values.slots.count {
                defer { position += 1 }
                if values.has(position) { return (key: position, value: values.slots[position]) }
            }
            return nil
        }
    }
}
