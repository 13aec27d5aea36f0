extension Dictionary {
    /// Makes room for one more key before an insert that would fill the table, as `TableGrowth` grows tables.
    @inline(__always)
    mutating func reserveForInsert() {
        guard count >= capacity else { return }
        reserve(TableGrowth.keys(afterFull: count))
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
}
