import Foundation

/// Appends the parts of an encoded history record: varints, strings, doubles and store values.
struct HistoryByteWriter {
    var bytes: [UInt8] = []

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    mutating func double(_ value: Double) {
        let bits = value.bitPattern
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
    }

    mutating func string(_ value: String) {
        let utf8 = Array(value.utf8)
        varint(UInt64(utf8.count))
        bytes += utf8
    }

    /// A string that may be nil: its length plus one, 0 for nil.
    mutating func optionalString(_ value: String?) {
        guard let value else { return varint(0) }
        let utf8 = Array(value.utf8)
        varint(UInt64(utf8.count + 1))
        bytes += utf8
    }

    mutating func data(_ value: Data) {
        varint(UInt64(value.count))
        bytes += value
    }

    /// A value: a tag byte, then its payload.
    mutating func value(_ value: StoreValue) {
        switch value {
        case .null: byte(0)
        case .integer(let v):
            byte(1)
            varint(UInt64(bitPattern: (v << 1) ^ (v >> 63)))
        case .double(let v):
            byte(2)
            double(v)
        case .decimal(let v):
            byte(3)
            string("\(v)")
        case .boolean(let v): byte(v ? 5 : 4)
        case .string(let v):
            byte(6)
            string(v)
        case .date(let v):
            byte(7)
            double(v.timeIntervalSinceReferenceDate)
        case .data(let v):
            byte(8)
            data(v)
        case .uuid(let v):
            byte(9)
            withUnsafeBytes(of: v.uuid) { bytes += $0 }
        case .uri(let v):
            byte(10)
            string(v.absoluteString)
        case .objectID(let v):
            byte(11)
            string(v.entity.name)
            varint(UInt64(bitPattern: v.key))
        }
    }
}

/// Reads what `HistoryByteWriter` wrote; every read checks the bounds.
struct HistoryByteReader {
    let bytes: UnsafeRawBufferPointer
    var offset = 0

    func corrupt(_ what: String) -> StoreError {
        StoreError(code: .corrupt, message: "persistent history is damaged: \(what) (at byte \(offset))")
    }

    mutating func byte() throws -> UInt8 {
        guard offset < bytes.count else { throw corrupt("the record ends early") }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func varint() throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let next = try byte()
            guard shift < 64 else { throw corrupt("a number is too long") }
            result |= UInt64(next & 0x7F) << shift
            if next < 0x80 { return result }
            shift += 7
        }
    }

    /// A count or code: a varint that must fit what is left of the record.
    mutating func count() throws -> Int {
        let value = try varint()
        guard value <= UInt64(bytes.count) * 8 else { throw corrupt("a count larger than the record") }
        return Int(value)
    }

    mutating func double() throws -> Double {
        var bits: UInt64 = 0
        for shift in stride(from: 0, to: 64, by: 8) { bits |= UInt64(try byte()) << UInt64(shift) }
        return Double(bitPattern: bits)
    }

    mutating func raw(_ count: Int) throws -> UnsafeRawBufferPointer {
        guard count <= bytes.count - offset else { throw corrupt("the record ends early") }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
    }

    mutating func string() throws -> String {
        String(decoding: try raw(try count()), as: UTF8.self)
    }

    mutating func optionalString() throws -> String? {
        let length = try count()
        guard length > 0 else { return nil }
        return String(decoding: try raw(length - 1), as: UTF8.self)
    }

    mutating func value(model: ManagedObjectModel, storeIdentifier: String) throws -> StoreValue {
        switch try byte() {
        case 0: return .null
        case 1:
            let raw = try varint()
            return .integer(Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1))
        case 2: return .double(try double())
        case 3:
            let text = try string()
            guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                throw corrupt("a decimal that does not parse")
            }
            return .decimal(decimal)
        case 4: return .boolean(false)
        case 5: return .boolean(true)
        case 6: return .string(try string())
        case 7: return .date(Date(timeIntervalSinceReferenceDate: try double()))
        case 8: return .data(Data(try raw(try count())))
        case 9:
            let raw = try raw(16)
            var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &uuid) { $0.copyMemory(from: raw) }
            return .uuid(UUID(uuid: uuid))
        case 10:
            let text = try string()
            guard let url = URL(string: text) else { throw corrupt("a URI that does not parse") }
            return .uri(url)
        case 11:
            let name = try string()
            let key = Int64(bitPattern: try varint())
            guard let entity = model.entitiesByName[name] else { throw corrupt("an object of unknown entity \(name)") }
            return .objectID(ManagedObjectID(entity: entity, storeIdentifier: storeIdentifier, primaryKey: key))
        default: throw corrupt("an unknown value tag")
        }
    }
}
