/// A hash that is the same in every process and on every machine (Swift's `Hasher` is seeded per process).
///
/// Used for entity version hashes, which stores persist and compare across launches.
enum StableHash {
    /// FNV-1a over the UTF-8 bytes, run twice with different offsets for 128 bits, as 32 hex digits.
    static func hex(of text: String) -> String {
        var a: UInt64 = 0xcbf2_9ce4_8422_2325
        var b: UInt64 = 0x6c62_272e_07bb_0142
        for byte in text.utf8 {
            a = (a ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            b = (b ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            b = b &+ (a >> 29)
        }
        return hex64(a) + hex64(b)
    }

    private static func hex64(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
