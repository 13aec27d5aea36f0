/// How the stack's own hash tables (the registry's, the row cache's) step from a key's home bucket: 17 buckets at a
/// time, not one.
///
/// `ObjectKey`'s hash gives the 16 keys of a run 16 neighbouring buckets. Stepping by one, a run that met another
/// ran on into it, so clusters grew a run at a time and a new run's keys each walked past the whole cluster: in a
/// table seven eighths full, hundreds of buckets per key (a child's save into a context of 100,000 objects took a
/// third longer). Seventeen is odd, so the steps still visit every bucket of a power-of-two table, and in the order
/// of the steps a run's neighbouring buckets lie far apart, so clusters form as they do for random keys. A key that
/// meets no other still sits in its home bucket, so a run is still written to neighbouring buckets.
enum TableProbe {
    /// The buckets between one probe and the next.
    static let step = 17
    /// The step's inverse modulo 2^64: the steps from one bucket to another are then one multiplication.
    private static let inverseStep = Int(bitPattern: 0xF0F0_F0F0_F0F0_F0F1)

    /// The bucket a probe looks at after `bucket`, in a table of `mask + 1` buckets.
    @inline(__always)
    static func next(_ bucket: Int, mask: Int) -> Int { (bucket &+ step) & mask }

    /// How many steps lead from `start` to `bucket`.
    @inline(__always)
    static func steps(from start: Int, to bucket: Int, mask: Int) -> Int { ((bucket &- start) &* inverseStep) & mask }

    /// A bucket's tag for a key's hash: 0x8000 and the hash's top 15 bits (0 marks an empty bucket), so a probe
    /// reads a key only where its tag matches, which one bucket in 32,768 does by chance.
    @inline(__always)
    static func tag(_ hash: Int) -> UInt16 { UInt16(truncatingIfNeeded: UInt(bitPattern: hash) >> 49) | 0x8000 }
}
