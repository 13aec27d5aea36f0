/// A managed object's Boolean state (fault, inserted, deleted, ...) as bits of one byte.
struct StateFlags: OptionSet {
    let rawValue: UInt8

    /// The object's values have not been read yet.
    static let fault = StateFlags(rawValue: 1 << 0)
    /// A context inserted the object and has not saved it yet.
    static let inserted = StateFlags(rawValue: 1 << 1)
    /// `objectsDidChange` has announced the object as inserted.
    static let insertAnnounced = StateFlags(rawValue: 1 << 2)
    /// A context deleted the object and has not saved it yet.
    static let deleted = StateFlags(rawValue: 1 << 3)
    /// A fault could not be fulfilled: the row is gone from the store.
    static let inaccessible = StateFlags(rawValue: 1 << 4)

    /// Sets or clears `flag`.
    @inline(__always)
    mutating func set(_ flag: StateFlags, _ on: Bool) {
        if on { insert(flag) } else { remove(flag) }
    }
}
