import Foundation

/// The bytes of a chunk of rows a store read, packed by `RowPacker`: each row's values in one run of bytes,
/// decoded when read.
///
/// A row is a header (its field count), one tag byte per field (padded to 8), one 8-byte slot per field, then
/// the bytes of its strings and UUIDs. A slot holds a number's bits, a string's offset (from the row's start) and
/// length, or the index of a value kept whole in `extras` (object IDs, data, decimals, URLs), which have no
/// cheaper packed form. Holding a fetched row this way costs its bytes and one share of the chunk, where an
/// array of `StoreValue`s cost 24 bytes a value plus an allocation per long string.
final class PackedRowStorage: @unchecked Sendable {
    // Immutable once made (the packer copies its finished bytes in), so sharing it across threads is safe.
    let base: UnsafeMutableRawPointer
    let extras: [StoreValue]
    /// The region the bytes lie in, when a large fetch packed them there; nil when they are the storage's own.
    let region: PackedRegion?

    /// Field tags.
    enum Tag: UInt8 {
        case null, integer, double, falseValue, trueValue, date, string, uuid, extra
    }

    /// Byte offset of the tags in a row.
    static let tagsStart = 8

    /// Takes over `bytes`, a `malloc`ed buffer the packer filled.
    init(adopting bytes: UnsafeMutableRawPointer, extras: [StoreValue]) {
        base = bytes
        self.extras = extras
        region = nil
    }

    /// Shares `region`, where the packer filled the bytes at `bytes`.
    init(in region: PackedRegion, at bytes: UnsafeMutableRawPointer, extras: [StoreValue]) {
        base = bytes
        self.extras = extras
        self.region = region
    }

    deinit { if region == nil { free(base) } }

    /// Where a row's slots start, for a row of `count` fields.
    @inline(__always)
    static func slotsStart(fieldCount count: Int) -> Int { tagsStart + (count + 7) & ~7 }

    /// The number of fields of the row at `offset`.
    @inline(__always)
    func fieldCount(at offset: Int) -> Int {
        Int(base.load(fromByteOffset: offset, as: UInt32.self))
    }

    /// Field `index` of the row at `offset`: the row's start, the field's tag and its slot.
    @inline(__always)
    private func field(at offset: Int, _ index: Int) -> (row: UnsafeMutableRawPointer, tag: Tag?, slot: UInt64) {
        let row = base + offset
        let count = Int(row.load(as: UInt32.self))
        return (
            row, Tag(rawValue: row.load(fromByteOffset: Self.tagsStart + index, as: UInt8.self)),
            row.load(fromByteOffset: Self.slotsStart(fieldCount: count) + 8 &* index, as: UInt64.self)
        )
    }

    /// The string a `.string` slot of `row` points to.
    @inline(__always)
    private static func string(in row: UnsafeMutableRawPointer, slot: UInt64) -> String {
        let start = (row + Int(truncatingIfNeeded: slot & 0xFFFF_FFFF)).assumingMemoryBound(to: UInt8.self)
        return String(decoding: UnsafeBufferPointer(start: start, count: Int(slot >> 32)), as: UTF8.self)
    }

    /// The value of field `index` of the row at `offset`.
    @inline(__always)
    func value(at offset: Int, field index: Int) -> StoreValue {
        let (row, tag, slot) = field(at: offset, index)
        switch tag {
        case .integer: return .integer(Int64(bitPattern: slot))
        case .double: return .double(Double(bitPattern: slot))
        case .falseValue: return .boolean(false)
        case .trueValue: return .boolean(true)
        case .date: return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: slot)))
        case .string: return .string(Self.string(in: row, slot: slot))
        case .uuid: return .uuid(UUID(uuid: (row + Int(slot)).loadUnaligned(as: uuid_t.self)))
        case .extra: return extras[Int(slot)]
        case .null, nil: return .null
        }
    }

    /// Field `index` of the row at `offset` read as a string, decoded from its bytes without a `StoreValue`.
    @inline(__always)
    func string(at offset: Int, field index: Int) -> TypedStringRead {
        let (row, tag, slot) = field(at: offset, index)
        switch tag {
        case .string: return .string(Self.string(in: row, slot: slot))
        case .null, nil: return .null
        case .extra: return TypedStringRead(extras[Int(slot)])
        default: return .other
        }
    }

    /// Field `index` of the row at `offset` read as a number, Boolean or date, without a `StoreValue`.
    @inline(__always)
    func scalar(at offset: Int, field index: Int) -> TypedScalarRead {
        let (_, tag, slot) = field(at: offset, index)
        switch tag {
        case .integer: return .integer(Int64(bitPattern: slot))
        case .double: return .double(Double(bitPattern: slot))
        case .falseValue: return .boolean(false)
        case .trueValue: return .boolean(true)
        case .date: return .date(Double(bitPattern: slot))
        case .null, nil: return .null
        case .extra: return TypedScalarRead(extras[Int(slot)])
        case .string, .uuid: return .other
        }
    }

    /// Whether field `index` of the row at `offset` is nil.
    @inline(__always)
    func isNull(at offset: Int, field index: Int) -> Bool {
        base.load(fromByteOffset: offset + Self.tagsStart + index, as: UInt8.self) == Tag.null.rawValue
    }

    /// Every value of the row at `offset`.
    func values(at offset: Int) -> [StoreValue] {
        let count = fieldCount(at: offset)
        return (0..<count).map { value(at: offset, field: $0) }
    }
}
