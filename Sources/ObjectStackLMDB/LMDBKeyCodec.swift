import Foundation
import ObjectStack

/// Encodes values as index keys whose byte order (LMDB's memcmp) is `ValueComparison`'s order.
///
/// Each value is a kind byte and a body: integers big-endian with the sign bit flipped, doubles and dates
/// with the usual order-preserving bit flip, strings, data and URIs as their bytes with 0x00 escaped as
/// 0x00 0xFF and ended by 0x00 0x01 (so no encoding is a prefix of a longer one, and "a" sorts before "a\0"
/// before "ab"). Decimals are keyed by their text, which keeps equality but not order, so range scans
/// never use them.
enum LMDBKeyCodec {
    /// Longest value part of an index key; LMDB keys are at most 511 bytes and index keys end with a
    /// primary key. A longer value is cut, which keeps order (never reverses two keys), so scans stay exact
    /// supersets and the predicate filters them.
    static let maximumIndexValueBytes = 400
    /// Longest uniqueness key kept as is; a longer one is cut and followed by a 128-bit hash of the whole.
    static let maximumUniqueKeyBytes = 480

    /// Appends a value's key bytes; `codec` gives references their entity code. (Cheaper than passing
    /// `codec.code(of:)`, which copies the codec into a closure context on every call.)
    @inline(__always)
    static func append(_ value: StoreValue, to key: inout [UInt8], codec: LMDBRowCodec) {
        if case .objectID = value {
            append(value, to: &key, codeOf: codec.code(of:))
        } else {
            append(value, to: &key, codeOf: noCode)
        }
    }

    private static func noCode(_: EntityDescription) -> UInt16 { 0 }

    static func append(_ value: StoreValue, to key: inout [UInt8], codeOf: (EntityDescription) -> UInt16) {
        switch value {
        case .null: key.append(0x00)
        case .boolean(let v):
            key.append(0x10)
            key.append(v ? 1 : 0)
        case .integer(let v):
            key.append(0x20)
            appendBigEndian(UInt64(bitPattern: v) ^ (1 << 63), to: &key)
        case .double(let v):
            key.append(0x30)
            appendOrdered(v, to: &key)
        case .date(let v):
            key.append(0x40)
            appendOrdered(v.timeIntervalSinceReferenceDate, to: &key)
        case .decimal(let v):
            key.append(0x50)
            appendEscaped(string: v.description, to: &key)
        case .string(let v):
            key.append(0x60)
            appendEscaped(string: v, to: &key)
        case .data(let v):
            key.append(0x70)
            appendEscaped(v, to: &key)
        case .uuid(let v):
            key.append(0x80)
            withUnsafeBytes(of: v.uuid) { key.append(contentsOf: $0) }
        case .uri(let v):
            key.append(0x90)
            appendEscaped(string: v.absoluteString, to: &key)
        case .objectID(let id):
            key.append(0xA0)
            appendBigEndian(UInt64(bitPattern: id.key), to: &key)
            let code = codeOf(id.entity)
            key.append(UInt8(truncatingIfNeeded: code >> 8))
            key.append(UInt8(truncatingIfNeeded: code))
        }
    }

    /// Longest prefix of a uniqueness key that keeps the values' order: a longer key was cut and hashed.
    static let orderedUniqueKeyBytes = maximumUniqueKeyBytes - 17

    /// The kind byte a value's key starts with.
    static func kindByte(of value: StoreValue) -> UInt8 {
        var key: [UInt8] = []
        append(value, to: &key, codeOf: noCode)
        return key[0]
    }

    /// The length of the encoded value starting at `offset`, or nil when the key ends (was cut) before it does.
    static func encodedLength(in key: UnsafeRawBufferPointer, at offset: Int) -> Int? {
        guard offset < key.count else { return nil }
        let fixed: Int
        switch key[offset] {
        case 0x00: fixed = 1
        case 0x10: fixed = 2
        case 0x20, 0x30, 0x40: fixed = 9
        case 0x80: fixed = 17
        case 0xA0: fixed = 11
        default:
            // Escaped bytes ended by 0x00 0x01 (0x00 0xFF is an escaped zero).
            var position = offset + 1
            while position + 1 < key.count {
                if key[position] == 0 {
                    if key[position + 1] == 1 { return position + 2 - offset }
                    position += 2
                } else {
                    position += 1
                }
            }
            return nil
        }
        return offset + fixed <= key.count ? fixed : nil
    }

    /// The key prefix every string starting with `prefix` has (kind byte and escaped bytes, no terminator).
    static func stringPrefix(_ prefix: String) -> [UInt8] {
        var key: [UInt8] = [0x60]
        for byte in prefix.utf8 {
            key.append(byte)
            if byte == 0 { key.append(0xFF) }
        }
        return key
    }

    /// Cuts an over-long uniqueness key to a prefix and a hash of the whole, so it fits LMDB's key limit.
    static func fitUniqueKey(_ key: inout [UInt8]) {
        guard key.count > maximumUniqueKeyBytes else { return }
        let first = fnv1a(key, basis: 0xcbf2_9ce4_8422_2325)
        let second = fnv1a(key, basis: 0x8422_2325_cbf2_9ce4)
        key.removeLast(key.count - (maximumUniqueKeyBytes - 17))
        key.append(0xFF)
        appendBigEndian(first, to: &key)
        appendBigEndian(second, to: &key)
    }

    private static func fnv1a(_ bytes: [UInt8], basis: UInt64) -> UInt64 {
        var hash = basis
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }

    @inline(__always)
    private static func appendBigEndian(_ value: UInt64, to key: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { key.append(contentsOf: $0) }
    }

    @inline(__always)
    private static func appendOrdered(_ value: Double, to key: inout [UInt8]) {
        // -0.0 and 0.0 compare equal, so they must share a key.
        let bits = (value == 0 ? 0.0 : value).bitPattern
        appendBigEndian(bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63), to: &key)
    }

    @inline(__always)
    private static func appendEscaped<C: Collection>(_ bytes: C, to key: inout [UInt8]) where C.Element == UInt8 {
        for byte in bytes {
            key.append(byte)
            if byte == 0 { key.append(0xFF) }
        }
        key.append(0x00)
        key.append(0x01)
    }

    private static func appendEscaped(string: String, to key: inout [UInt8]) {
        var text = string
        text.withUTF8 { utf8 in
            if utf8.isEmpty || memchr(utf8.baseAddress!, 0, utf8.count) == nil {
                key.append(contentsOf: utf8)
            } else {
                for byte in utf8 {
                    key.append(byte)
                    if byte == 0 { key.append(0xFF) }
                }
            }
        }
        key.append(0x00)
        key.append(0x01)
    }
}
