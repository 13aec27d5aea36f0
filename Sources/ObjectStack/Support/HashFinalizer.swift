/// SplitMix64's finalizer: spreads a word's bits over all 64, so a hash table's low bits differ for keys that
/// differ anywhere. The tables of objects and IDs feed it an identity or an existing hash mixed with the
/// table's seed, where running SipHash again cost a tenth of registering objects.
enum HashFinalizer {
    /// The mixed word.
    @inline(__always)
    static func mix(_ value: UInt64) -> Int {
        var z = value
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return Int(bitPattern: UInt(z ^ (z >> 31)))
    }
}
