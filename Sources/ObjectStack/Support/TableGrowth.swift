/// How the stack's hash tables grow when an insert finds them full: four times the keys while the table is small,
/// twice (as `Dictionary` itself grows) past `quadruplingLimit`.
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
}
