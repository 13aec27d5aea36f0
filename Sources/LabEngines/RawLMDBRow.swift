import LabWorkloads

/// A pod row in the LMDB store's row format, encoded and decoded by hand for the raw side: a format byte, a
/// 2-byte entity code, version and field-count varints, then tagged fields (0 null, 1 zig-zag varint
/// integer, 2 eight-byte little-endian double, 6 length-prefixed UTF-8 string).
enum RawLMDBRow {
    static func encode(_ pod: PodRow, into bytes: inout [UInt8]) {
        bytes.removeAll(keepingCapacity: true)
        bytes.append(contentsOf: [1, 1, 0])
        varint(1, &bytes)
        varint(8, &bytes)
        string(pod.name, &bytes)
        string(pod.version, &bytes)
        string(pod.authors, &bytes)
        string(pod.homepage, &bytes)
        string(pod.license, &bytes)
        string(pod.summary, &bytes)
        bytes.append(1)
        varint(UInt64(bitPattern: (pod.downloads << 1) ^ (pod.downloads >> 63)), &bytes)
        bytes.append(2)
        withUnsafeBytes(of: pod.updated.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
    }

    private static func varint(_ value: UInt64, _ bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    private static func string(_ text: String?, _ bytes: inout [UInt8]) {
        guard let text else {
            bytes.append(0)
            return
        }
        bytes.append(6)
        varint(UInt64(text.utf8.count), &bytes)
        bytes.append(contentsOf: text.utf8)
    }

    /// Reads a row written by `encode`.
    static func decode(_ id: Int64, _ bytes: UnsafeRawBufferPointer) -> PodRow {
        var reader = Reader(bytes: bytes, position: 3)
        _ = reader.varint()
        _ = reader.varint()
        let name = reader.string() ?? ""
        let version = reader.string() ?? ""
        let authors = reader.string() ?? ""
        let homepage = reader.string()
        let license = reader.string()
        let summary = reader.string()
        let downloads = reader.integer()
        let updated = reader.double()
        return PodRow(
            id: id, name: name, version: version, authors: authors, homepage: homepage, license: license,
            summary: summary, downloads: downloads, updated: updated)
    }

    /// Only the downloads of a row, skipping the strings without decoding them.
    static func downloads(_ bytes: UnsafeRawBufferPointer) -> Int64 {
        var reader = Reader(bytes: bytes, position: 3)
        _ = reader.varint()
        _ = reader.varint()
        for _ in 0..<6 { reader.skipString() }
        return reader.integer()
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var position: Int

        mutating func varint() -> UInt64 {
            var result: UInt64 = 0
            var shift: UInt64 = 0
            while position < bytes.count {
                let byte = bytes[position]
                position += 1
                result |= UInt64(byte & 0x7f) << shift
                if byte < 0x80 { break }
                shift += 7
            }
            return result
        }

        mutating func skipString() {
            guard position < bytes.count else { return }
            let tag = bytes[position]
            position += 1
            if tag == 6 { position += Int(varint()) }
        }

        mutating func string() -> String? {
            guard position < bytes.count else { return nil }
            let tag = bytes[position]
            position += 1
            guard tag == 6 else { return nil }
            let length = min(Int(varint()), bytes.count - position)
            let text = String(
                decoding: UnsafeRawBufferPointer(rebasing: bytes[position..<position + length]), as: UTF8.self)
            position += length
            return text
        }

        mutating func integer() -> Int64 {
            guard position < bytes.count, bytes[position] == 1 else { return 0 }
            position += 1
            let zigzag = varint()
            return Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)
        }

        mutating func double() -> Double {
            guard position + 9 <= bytes.count, bytes[position] == 2 else { return 0 }
            let bits = bytes.loadUnaligned(fromByteOffset: position + 1, as: UInt64.self)
            position += 9
            return Double(bitPattern: UInt64(littleEndian: bits))
        }
    }
}
