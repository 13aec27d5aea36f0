/// How the stack's hash tables grow when an insert finds them full: four times the keys while the table is small,
/// twice (as `Dictionary` itself grows) past `quadruplingLimit`; and, for the tables of its own (the registry's,
/// the row cache's), how full they get: seven eighths, where `Dictionary` stops at three quarters.
///
/// The context's registry and the coordinator's row cache start empty on a fresh stack and gain one object per
/// lookup, so the first thousand lookups paid ten resizes, each rehashing every key into a new allocation (6% of
/// LMDB's fetch-by-id of 1,000 in the profile). Quadrupling rehashes a third as many keys in four resizes, and a
/// table ends at the same size; big tables keep doubling, so they hold no more memory than before.
enum TableGrowth {
    /// The number of keys up to which a full table quadruples.
    static let quadruplingLimit = 4_096

    /// The keys to make room for when a table holding `count` keys is full.
    @inline(__always)
    static func keys(afterFull count: Int) -> Int {
        count < quadruplingLimit ? Swift.max(count * 4, 16) : count * 2
    }

    /// The most keys a table of `buckets` buckets (a power of two) holds: seven eighths of them.
    ///
    /// Tags of 16 bits keep a fuller table's longer probes in a few cache lines and off other keys, and its smaller
    /// size is fewer lines missed: at three quarters, 100,000 keys took 2^18 buckets; at seven eighths, 2^17.
    @inline(__always)
    static func maximumKeys(inBuckets buckets: Int) -> Int { buckets / 8 * 7 }

    /// The buckets (a power of two, at least 16; none for no keys) that hold `keys` keys at most seven eighths full.
    static func buckets(for keys: Int) -> Int {
        guard keys > 0 else { return 0 }
        let needed = keys + (keys + 6) / 7
        return Swift.max(16, 1 << (Int.bitWidth - (needed - 1).leadingZeroBitCount))
    }
}
