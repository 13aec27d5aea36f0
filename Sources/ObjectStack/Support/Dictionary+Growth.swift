extension Dictionary {
    /// Makes room for one more key before an insert that would fill the table: four times the keys while the
    /// table is small, twice (as `Dictionary` itself grows) past `quadruplingLimit`.
    ///
    /// The context's registry and the coordinator's row cache start empty on a fresh stack and gain one object per
    /// lookup, so the first thousand lookups paid ten resizes, each rehashing every key into a new allocation (6%
    /// of LMDB's fetch-by-id of 1,000 in the profile). Quadrupling rehashes a third as many keys in four resizes,
    /// and a table ends at the same size; big tables keep doubling, so they hold no more memory than before.
    @inline(__always)
    mutating func reserveForInsert() {
        guard count >= capacity else { return }
        reserve(count < Self.quadruplingLimit ? Swift.max(count * 4, 16) : count * 2)
    }

    /// Makes room for `minimumCapacity` keys in all, as `reserveCapacity` does, but rehashing the keys through this
    /// module's inserts, specialised for the table's key and value: the standard library's `reserveCapacity` runs
    /// its unspecialised copy, which hashes and moves every key through protocol witnesses (its resizes were 4% of
    /// LMDB's fetch-by-id of 10,000 in the profile, for a thousand keys rehashed).
    mutating func reserve(_ minimumCapacity: Int) {
        guard minimumCapacity > capacity else { return }
        var grown = Self(minimumCapacity: minimumCapacity)
        for (key, value) in self { grown[key] = value }
        self = grown
    }

    /// The number of keys up to which a full table quadruples.
    private static var quadruplingLimit: Int { 4_096 }
}
