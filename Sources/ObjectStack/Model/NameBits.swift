/// The two words a `String` value is made of, compared as an identity: equal bits are the same string (a short
/// string is stored in its own bits; a long one points at its storage), while different bits may still be equal
/// strings, so a lookup by bits falls back to comparing the text.
struct NameBits: Equatable {
    let low: UInt64
    let high: UInt64

    /// The bits of `name`.
    @inline(__always)
    init(_ name: String) {
        (low, high) = unsafeBitCast(name, to: (UInt64, UInt64).self)
    }
}
