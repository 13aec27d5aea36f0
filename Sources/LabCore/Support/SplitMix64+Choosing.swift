extension SplitMix64 {
    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &self) < p }

    /// One element of a non-empty collection.
    public mutating func pick<C: RandomAccessCollection>(_ collection: C) -> C.Element {
        collection[
            collection.index(collection.startIndex, offsetBy: Int.random(in: 0..<collection.count, using: &self))]
    }
}
