/// Values of an object's properties by property index, for the few that are set (its unsaved changes).
///
/// One slot per property, allocated on the first value: setting and reading a value is an array access, not
/// a hash of the index, and an object's changes are one allocation instead of a hash table (a dictionary per
/// changed object showed in insert profiles). Reads and writes use the dictionary spelling the object used
/// before, so `changes[index] = nil` removes a value.
struct PropertyValues: ExpressibleByDictionaryLiteral, Sequence {
    private var slots: [StoreValue?] = []
    /// The number of properties with a value.
    private(set) var count = 0

    init() {}

    /// Creates values from index–value pairs (`[:]` for none).
    init(dictionaryLiteral elements: (Int, StoreValue)...) {
        for (index, value) in elements { self[index] = value }
    }

    /// Whether no property has a value.
    var isEmpty: Bool { count == 0 }

    /// The value of the property at `index`; nil removes it.
    subscript(index: Int) -> StoreValue? {
        get { index < slots.count ? slots[index] : nil }
        set {
            if index >= slots.count {
                guard newValue != nil else { return }
                slots.append(contentsOf: repeatElement(nil, count: index + 1 - slots.count))
            }
            let had = slots[index] != nil
            let has = newValue != nil
            if had != has { count += has ? 1 : -1 }
            slots[index] = newValue
        }
    }

    /// Makes room for `propertyCount` properties at once, so the first values do not grow the storage.
    mutating func reserveCapacity(_ propertyCount: Int) {
        if slots.count < propertyCount {
            slots.append(contentsOf: repeatElement(nil, count: propertyCount - slots.count))
        }
    }

    /// The indices that have a value, in index order.
    var keys: [Int] { slots.indices.filter { slots[$0] != nil } }

    /// The index–value pairs, in index order.
    func makeIterator() -> AnyIterator<(key: Int, value: StoreValue)> {
        var position = 0
        let slots = slots
        return AnyIterator {
            while position < slots.count {
                defer { position += 1 }
                if let value = slots[position] { return (key: position, value: value) }
            }
            return nil
        }
    }
}
