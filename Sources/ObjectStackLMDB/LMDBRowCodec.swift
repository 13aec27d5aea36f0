import Foundation
import ObjectStack

/// The binary form of a row: compact, versioned, and readable one field at a time.
///
/// Layout: a format byte (1), the concrete entity's code (UInt16, little-endian), the row version (varint),
/// the field count (varint), then each stored property in `storedIndex` order as a tag byte and its payload.
/// Integers are zig-zag varints, doubles and dates 8 bytes, strings, data and URIs a varint length and
/// their bytes, UUIDs 16 bytes, references the target's entity code and primary key. A field is skipped by
/// reading its tag and length, so a fetch decodes only the fields its predicate and sort keys touch.
///
/// A row written before an in-place migration added attributes has fewer fields than its entity has stored
/// properties; it is read through the layout `LMDBRowLayouts` recorded for its field count, so it
/// decodes to the same values a copying migration would have written.
struct LMDBRowCodec: Sendable {
    static let formatVersion: UInt8 = 1

    private enum Tag: UInt8 {
        case null = 0, integer, double, decimal, falseValue, trueValue, string, date, data, uuid, uri, objectID
    }

    /// The header of an encoded row.
    struct Header {
        let entityCode: UInt16
        let version: Int64
        let fieldCount: Int
        /// Where the first field starts.
        let fieldsStart: Int
        /// The row's older layout in `legacyLayouts`, or -1 for a row of the current layout.
        let legacyLayout: Int
    }

    /// Entities by code; a code is the entity's position in the store's persisted entity table.
    let entitiesByCode: [EntityDescription?]
    /// Codes by `EntityDescription.modelIndex`.
    private let codesByModelIndex: [UInt16]
    let storeIdentifier: String
    let url: URL
    /// The older row layouts the store records (see `LMDBRowLayouts`).
    let layouts: LMDBRowLayouts
    /// `layouts`' layouts, and per entity code its layouts' field counts and positions: searched only for a
    /// store that has any, so reading a row of a store without them costs one branch.
    private let legacyLayouts: [LMDBRowLayouts.Layout]
    private let legacyByCode: [[(fieldCount: Int, layout: Int)]]

    init(
        entityTable: [String], model: ManagedObjectModel, storeIdentifier: String, url: URL,
        layouts: LMDBRowLayouts = .none
    ) {
        let byName = model.entitiesByName
        entitiesByCode = entityTable.map { byName[$0] }
        var codes = [UInt16](repeating: UInt16.max, count: model.entities.count)
        for (code, name) in entityTable.enumerated() {
            if let entity = byName[name], entity.modelIndex >= 0, entity.modelIndex < codes.count {
                codes[entity.modelIndex] = UInt16(code)
            }
        }
        codesByModelIndex = codes
        self.storeIdentifier = storeIdentifier
        self.url = url
        self.layouts = layouts
        legacyLayouts = layouts.layouts
        var byCode = [[(fieldCount: Int, layout: Int)]](repeating: [], count: layouts.isEmpty ? 0 : entityTable.count)
        for (index, layout) in layouts.layouts.enumerated() where Int(layout.entityCode) < byCode.count {
            byCode[Int(layout.entityCode)].append((layout.fieldCount, index))
        }
        legacyByCode = byCode
    }

    /// Checks the recorded layouts against the model: each must give every stored property of its entity a
    /// source, or the store was migrated in place to another model than the one that opens it.
    /// - Throws: `StoreError(.corrupt)` naming the entity and layout that do not fit.
    func checkLayouts() throws {
        for layout in legacyLayouts {
            guard let entity = entity(code: layout.entityCode) else { continue }
            guard layout.sources.count == entity.storedProperties.count,
                layout.fieldCount < entity.storedProperties.count
            else {
                throw StoreError(
                    code: .corrupt,
                    message:
                        "the store's recorded layout of older \(entity.name) rows (\(layout.fieldCount) fields) does not "
                        + "fit the entity's \(entity.storedProperties.count) stored properties", url: url)
            }
        }
    }

    /// The code of an entity of the model.
    @inline(__always)
    func code(of entity: EntityDescription) -> UInt16 { codesByModelIndex[entity.modelIndex] }

    /// The entity with a code, or nil for a code the model does not know (a damaged row).
    @inline(__always)
    func entity(code: UInt16) -> EntityDescription? {
        Int(code) < entitiesByCode.count ? entitiesByCode[Int(code)] : nil
    }

    // MARK: - Encoding

    /// Appends the encoded row to `buffer`.
    func encode<Values: Collection<StoreValue>>(
        entity: EntityDescription, version: Int64, values: Values, into buffer: inout [UInt8]
    ) {
        buffer.append(Self.formatVersion)
        let code = code(of: entity)
        buffer.append(UInt8(truncatingIfNeeded: code))
        buffer.append(UInt8(truncatingIfNeeded: code >> 8))
        Self.appendVarint(UInt64(bitPattern: version), to: &buffer)
        Self.appendVarint(UInt64(values.count), to: &buffer)
        for value in values { encode(value, into: &buffer) }
    }

    private func encode(_ value: StoreValue, into buffer: inout [UInt8]) {
        switch value {
        case .null: buffer.append(Tag.null.rawValue)
        case .integer(let v):
            buffer.append(Tag.integer.rawValue)
            Self.appendVarint(UInt64(bitPattern: (v << 1) ^ (v >> 63)), to: &buffer)
        case .double(let v):
            buffer.append(Tag.double.rawValue)
            Self.appendFixed(v.bitPattern, to: &buffer)
        case .decimal(let v):
            buffer.append(Tag.decimal.rawValue)
            Self.appendBytes(v.description.utf8, to: &buffer)
        case .boolean(let v): buffer.append(v ? Tag.trueValue.rawValue : Tag.falseValue.rawValue)
        case .string(let v):
            buffer.append(Tag.string.rawValue)
            var text = v
            text.withUTF8 { Self.appendBytes($0, to: &buffer) }
        case .date(let v):
            buffer.append(Tag.date.rawValue)
            Self.appendFixed(v.timeIntervalSinceReferenceDate.bitPattern, to: &buffer)
        case .data(let v):
            buffer.append(Tag.data.rawValue)
            Self.appendBytes(v, to: &buffer)
        case .uuid(let v):
            buffer.append(Tag.uuid.rawValue)
            withUnsafeBytes(of: v.uuid) { buffer.append(contentsOf: $0) }
        case .uri(let v):
            buffer.append(Tag.uri.rawValue)
            Self.appendBytes(v.absoluteString.utf8, to: &buffer)
        case .objectID(let id):
            buffer.append(Tag.objectID.rawValue)
            let code = code(of: id.entity)
            buffer.append(UInt8(truncatingIfNeeded: code))
            buffer.append(UInt8(truncatingIfNeeded: code >> 8))
            Self.appendVarint(UInt64(bitPattern: id.key), to: &buffer)
        }
    }

    /// Encodes bare values, without a row header: how the `meta` database records row layouts.
    func encodeValues(_ values: [StoreValue], into buffer: inout [UInt8]) {
        Self.appendVarint(UInt64(values.count), to: &buffer)
        for value in values { encode(value, into: &buffer) }
    }

    /// Decodes what `encodeValues` wrote.
    /// - Throws: `StoreError.corrupt` when the bytes do not decode.
    func decodeValues(_ bytes: UnsafeRawBufferPointer) throws -> [StoreValue] {
        var reader = Reader(bytes: bytes)
        guard let count = reader.varint(), count <= UInt64(bytes.count) else { throw corrupt("truncated value list") }
        let values = try (0..<Int(count)).map { _ in try decodeValue(&reader) }
        guard reader.position == bytes.count else { throw corrupt("trailing bytes after a value list") }
        return values
    }

    @inline(__always)
    static func appendVarint(_ value: UInt64, to buffer: inout [UInt8]) {
        var rest = value
        while rest >= 0x80 {
            buffer.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        buffer.append(UInt8(rest))
    }

    @inline(__always)
    private static func appendFixed(_ value: UInt64, to buffer: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { buffer.append(contentsOf: $0) }
    }

    @inline(__always)
    private static func appendBytes<C: Collection>(_ bytes: C, to buffer: inout [UInt8]) where C.Element == UInt8 {
        appendVarint(UInt64(bytes.count), to: &buffer)
        buffer.append(contentsOf: bytes)
    }

    // MARK: - Decoding

    /// Reads a row's header.
    /// - Throws: `StoreError.corrupt` when the bytes are not a row of this format.
    @inline(__always)
    func header(of bytes: UnsafeRawBufferPointer) throws -> Header {
        var reader = Reader(bytes: bytes)
        guard bytes.count >= 3, bytes[0] == Self.formatVersion else { throw corrupt("unknown row format") }
        reader.position = 1
        let code = UInt16(bytes[1]) | UInt16(bytes[2]) << 8
        reader.position = 3
        guard let version = reader.varint(), let count = reader.varint() else { throw corrupt("truncated row header") }
        // Every field takes a byte at least: a larger count is damage, not a size for a reader to allocate.
        guard count <= UInt64(bytes.count - reader.position) else { throw corrupt("field count past the row's end") }
        var legacy = -1
        if !legacyByCode.isEmpty, Int(code) < legacyByCode.count {
            for entry in legacyByCode[Int(code)] where UInt64(entry.fieldCount) == count { legacy = entry.layout }
        }
        return Header(
            entityCode: code, version: Int64(bitPattern: version), fieldCount: Int(count),
            fieldsStart: reader.position, legacyLayout: legacy)
    }

    /// Decodes every field of a row.
    func decodeAll(_ bytes: UnsafeRawBufferPointer, header: Header) throws -> [StoreValue] {
        var reader = Reader(bytes: bytes)
        reader.position = header.fieldsStart
        var values: [StoreValue] = []
        values.reserveCapacity(header.fieldCount)
        for _ in 0..<header.fieldCount { values.append(try decodeValue(&reader)) }
        guard header.legacyLayout >= 0 else { return values }
        return legacyLayouts[header.legacyLayout].sources.map { source in
            switch source {
            case .field(let position): return values[position]
            case .fill(let value): return value
            }
        }
    }

    /// Packs a row's fields into `packer` (`RowPacker`): strings go from the row's bytes into the packer's without
    /// becoming `String`s; a row of an older layout is decoded and mapped first.
    /// - Throws: `StoreError.corrupt` when the bytes do not decode.
    func pack(_ bytes: UnsafeRawBufferPointer, header: Header, into packer: RowPacker) throws {
        guard header.legacyLayout < 0 else {
            let values = try decodeAll(bytes, header: header)
            packer.beginRow(fieldCount: values.count)
            for value in values { packer.append(value) }
            packer.endRow(version: header.version)
            return
        }
        var reader = Reader(bytes: bytes)
        reader.position = header.fieldsStart
        packer.beginRow(fieldCount: header.fieldCount)
        for _ in 0..<header.fieldCount {
            // Strings go over as bytes, and numbers, Booleans, dates and nil straight into their slots; the rarer
            // kinds are decoded as usual and packed. Building a `StoreValue` for each scalar only to switch on it
            // again in the packer was a fifth of packing a pod.
            guard reader.position < bytes.count else { throw corrupt("truncated row") }
            switch bytes[reader.position] {
            case Tag.string.rawValue:
                reader.position += 1
                guard let text = reader.lengthPrefixed() else { throw corrupt("truncated string") }
                packer.appendString(utf8: text)
            case Tag.integer.rawValue:
                reader.position += 1
                guard let value = reader.signedVarint() else { throw corrupt("truncated integer") }
                packer.appendInteger(value)
            case Tag.double.rawValue:
                reader.position += 1
                guard let bits = reader.fixed() else { throw corrupt("truncated double") }
                packer.appendDouble(Double(bitPattern: bits))
            case Tag.date.rawValue:
                reader.position += 1
                guard let bits = reader.fixed() else { throw corrupt("truncated date") }
                packer.appendDate(timeIntervalSinceReferenceDate: Double(bitPattern: bits))
            case Tag.null.rawValue:
                reader.position += 1
                packer.appendNull()
            case Tag.falseValue.rawValue, Tag.trueValue.rawValue:
                packer.appendBoolean(bytes[reader.position] == Tag.trueValue.rawValue)
                reader.position += 1
            default:
                packer.append(try decodeValue(&reader))
            }
        }
        packer.endRow(version: header.version)
    }

    /// Decodes one field, skipping the ones before it; `.null` for a field the row does not have.
    @inline(__always)
    func decodeField(_ index: Int, of bytes: UnsafeRawBufferPointer, header: Header) throws -> StoreValue {
        if header.legacyLayout >= 0 { return try decodeLegacyField(index, of: bytes, header: header) }
        return try decodeStoredField(index, of: bytes, header: header)
    }

    /// A field stored as an integer, read without building a `StoreValue`; nil when the row has an older
    /// layout, the field holds another kind (or nil), or the bytes are damaged: `decodeField` then reads (or
    /// reports) it.
    @inline(__always)
    func integerField(_ index: Int, of bytes: UnsafeRawBufferPointer, header: Header) -> Int64? {
        guard header.legacyLayout < 0, index < header.fieldCount else { return nil }
        var reader = Reader(bytes: bytes)
        reader.position = header.fieldsStart
        guard Self.skip(index, &reader), reader.byte() == Tag.integer.rawValue else { return nil }
        return reader.signedVarint()
    }

    /// A field of a row of an older layout: the row's field it maps to, or the fill the layout records.
    private func decodeLegacyField(_ index: Int, of bytes: UnsafeRawBufferPointer, header: Header) throws -> StoreValue
    {
        let sources = legacyLayouts[header.legacyLayout].sources
        guard index < sources.count else { return .null }
        switch sources[index] {
        case .field(let position): return try decodeStoredField(position, of: bytes, header: header)
        case .fill(let value): return value
        }
    }

    /// The field at a position of the row's bytes.
    @inline(__always)
    private func decodeStoredField(_ index: Int, of bytes: UnsafeRawBufferPointer, header: Header) throws -> StoreValue
    {
        guard index < header.fieldCount else { return .null }
        var reader = Reader(bytes: bytes)
        reader.position = header.fieldsStart
        guard Self.skip(index, &reader) else { throw corrupt("truncated field or unknown field tag") }
        return try decodeValue(&reader)
    }

    private func decodeValue(_ reader: inout Reader) throws -> StoreValue {
        guard let raw = reader.byte(), let tag = Tag(rawValue: raw) else { throw corrupt("unknown field tag") }
        switch tag {
        case .null: return .null
        case .integer:
            guard let value = reader.signedVarint() else { throw corrupt("truncated integer") }
            return .integer(value)
        case .double:
            guard let bits = reader.fixed() else { throw corrupt("truncated double") }
            return .double(Double(bitPattern: bits))
        case .decimal:
            guard let bytes = reader.lengthPrefixed(), let value = Decimal(string: Self.string(bytes), locale: nil)
            else { throw corrupt("bad decimal") }
            return .decimal(value)
        case .falseValue: return .boolean(false)
        case .trueValue: return .boolean(true)
        case .string:
            guard let bytes = reader.lengthPrefixed() else { throw corrupt("truncated string") }
            return .string(Self.string(bytes))
        case .date:
            guard let bits = reader.fixed() else { throw corrupt("truncated date") }
            return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: bits)))
        case .data:
            guard let bytes = reader.lengthPrefixed() else { throw corrupt("truncated data") }
            return .data(Data(bytes))
        case .uuid:
            guard let bytes = reader.take(16) else { throw corrupt("truncated UUID") }
            var uuid = UUID().uuid
            withUnsafeMutableBytes(of: &uuid) { $0.copyMemory(from: bytes) }
            return .uuid(UUID(uuid: uuid))
        case .uri:
            guard let bytes = reader.lengthPrefixed(), let url = URL(string: Self.string(bytes)) else {
                throw corrupt("bad URI")
            }
            return .uri(url)
        case .objectID:
            guard let codeBytes = reader.take(2), let key = reader.varint(),
                let entity = entity(code: UInt16(codeBytes[0]) | UInt16(codeBytes[1]) << 8)
            else { throw corrupt("bad reference") }
            return .objectID(
                ManagedObjectID(entity: entity, storeIdentifier: storeIdentifier, primaryKey: Int64(bitPattern: key)))
        }
    }

    /// Skips `count` fields; false when the bytes end or hold an unknown tag. Strings and one-byte varints
    /// (most fields of most rows) are skipped in this loop, in registers; the rest through `skip(_:)`. The
    /// profile of a count over pods spent half its time in a call and an indirect jump per skipped field.
    @inline(__always)
    private static func skip(_ count: Int, _ reader: inout Reader) -> Bool {
        let bytes = reader.bytes
        let end = bytes.count
        var position = reader.position
        var left = count
        while left > 0 {
            guard position < end else { return false }
            let tag = bytes[position]
            if tag == Tag.string.rawValue || tag == Tag.integer.rawValue, position + 1 < end, bytes[position + 1] < 0x80
            {
                // A string shorter than 128 bytes, or an integer whose varint is one byte.
                position += tag == Tag.string.rawValue ? 2 + Int(bytes[position + 1]) : 2
                guard position <= end else { return false }
            } else {
                reader.position = position
                guard skip(&reader) else { return false }
                position = reader.position
            }
            left -= 1
        }
        reader.position = position
        return true
    }

    /// Steps over one field; false when the bytes end inside it or its tag is unknown. The fields
    /// `skip(_:_:)` does not step over itself.
    private static func skip(_ reader: inout Reader) -> Bool {
        guard let raw = reader.byte() else { return false }
        // Strings first, with a plain branch: a jump table's indirect jump mispredicted on most fields of a
        // scan (profile of a count over pods).
        if raw == Tag.string.rawValue {
            guard let length = reader.varint(), length <= UInt64(reader.bytes.count) else { return false }
            return reader.skip(Int(length))
        }
        if raw == Tag.null.rawValue { return true }
        switch raw {
        case Tag.null.rawValue, Tag.falseValue.rawValue, Tag.trueValue.rawValue: return true
        case Tag.integer.rawValue: return reader.varint() != nil
        case Tag.double.rawValue, Tag.date.rawValue: return reader.skip(8)
        case Tag.decimal.rawValue, Tag.string.rawValue, Tag.data.rawValue, Tag.uri.rawValue:
            guard let length = reader.varint(), length <= UInt64(reader.bytes.count) else { return false }
            return reader.skip(Int(length))
        case Tag.uuid.rawValue: return reader.skip(16)
        case Tag.objectID.rawValue: return reader.skip(2) && reader.varint() != nil
        default: return false
        }
    }

    @inline(__always)
    private static func string(_ bytes: UnsafeRawBufferPointer) -> String {
        guard let base = bytes.baseAddress else { return "" }
        return String(
            decoding: UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: bytes.count),
            as: UTF8.self)
    }

    private func corrupt(_ what: String) -> StoreError {
        StoreError(code: .corrupt, message: "a stored row does not decode: \(what)", url: url)
    }

    /// A bounds-checked reading position in a row.
    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var position = 0

        @inline(__always)
        mutating func byte() -> UInt8? {
            guard position < bytes.count else { return nil }
            defer { position += 1 }
            return bytes[position]
        }

        @inline(__always)
        mutating func varint() -> UInt64? {
            var result: UInt64 = 0
            var shift: UInt64 = 0
            while position < bytes.count, shift < 64 {
                let byte = bytes[position]
                position += 1
                result |= UInt64(byte & 0x7f) << shift
                if byte < 0x80 { return result }
                shift += 7
            }
            return nil
        }

        /// A zig-zag varint, as integers are stored.
        @inline(__always)
        mutating func signedVarint() -> Int64? {
            guard let zigzag = varint() else { return nil }
            return Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)
        }

        @inline(__always)
        mutating func fixed() -> UInt64? {
            guard position + 8 <= bytes.count else { return nil }
            defer { position += 8 }
            return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self))
        }

        @inline(__always)
        mutating func skip(_ count: Int) -> Bool {
            guard count >= 0, position + count <= bytes.count else { return false }
            position += count
            return true
        }

        @inline(__always)
        mutating func take(_ count: Int) -> UnsafeRawBufferPointer? {
            guard count >= 0, position + count <= bytes.count else { return nil }
            defer { position += count }
            return UnsafeRawBufferPointer(rebasing: bytes[position..<position + count])
        }

        @inline(__always)
        mutating func lengthPrefixed() -> UnsafeRawBufferPointer? {
            guard let length = varint(), length <= UInt64(bytes.count) else { return nil }
            return take(Int(length))
        }
    }
}
