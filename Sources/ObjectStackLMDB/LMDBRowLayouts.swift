import CLMDB
import Foundation
import ObjectStack

/// The layouts of rows written before an in-place migration added attributes: how each of their fields maps
/// onto the entity's stored properties today, and what the properties they lack read as.
///
/// An in-place migration (`LMDBInPlaceMigration`) rewrites no row: it records, per entity code, the layout of
/// the rows already written, keyed by their field count, and the codec reads such a row through it (a new
/// attribute reads as the default it had when the migration ran, as a copying migration would have written
/// it). Rows written after the migration, and rows updated since, have the current layout. Field counts tell
/// the layouts apart: an in-place migration only adds stored properties, so every recorded layout has fewer
/// fields than the one after it.
///
/// Persisted in the store's `meta` database, one entry per layout: key `rowLayout/CODE/FIELDCOUNT`, value the
/// sources as bare encoded values (for each stored property a kind, 0 for an old field then its position, 1
/// for a fill then its value).
struct LMDBRowLayouts: Sendable {
    /// Where one stored property of a row in an older layout comes from.
    enum Source: Sendable, Equatable {
        /// The row's field at this position.
        case field(Int)
        /// A value the row does not hold: the property's default when the migration added it.
        case fill(StoreValue)
    }

    /// One older layout of one entity's rows.
    struct Layout: Sendable, Equatable {
        let entityCode: UInt16
        /// The number of fields the rows of this layout hold.
        let fieldCount: Int
        /// One source per stored property of the entity today, by `storedIndex`.
        let sources: [Source]
    }

    /// Every recorded layout.
    let layouts: [Layout]

    static let keyPrefix = "rowLayout/"

    /// The `format` a store's metadata records once it holds rows of older layouts: a build that does not know
    /// layouts refuses it rather than misreading those rows.
    static let storeFormat = "2"

    static let none = LMDBRowLayouts(layouts: [])

    var isEmpty: Bool { layouts.isEmpty }

    /// The layouts after a migration whose new stored properties come from `sources` (by entity code, one source
    /// per new stored property, a `.field` naming the property's position in today's layout): each recorded
    /// layout is carried through, and today's layout becomes a recorded one.
    func adding(_ sources: [UInt16: [Source]], currentFieldCounts: [UInt16: Int]) -> LMDBRowLayouts {
        var result: [Layout] = []
        for layout in layouts {
            guard let next = sources[layout.entityCode] else {
                result.append(layout)
                continue
            }
            result.append(
                Layout(
                    entityCode: layout.entityCode, fieldCount: layout.fieldCount,
                    sources: next.map { source in
                        guard case .field(let position) = source else { return source }
                        return layout.sources[position]
                    }))
        }
        for (code, next) in sources.sorted(by: { $0.key < $1.key }) {
            guard let count = currentFieldCounts[code] else { continue }
            result.append(Layout(entityCode: code, fieldCount: count, sources: next))
        }
        return LMDBRowLayouts(layouts: result)
    }

    // MARK: - Persistence

    /// Reads the recorded layouts from the `meta` database.
    /// - Throws: `StoreError(.corrupt)` for an entry that does not decode.
    static func load(_ txn: LMDBTransaction, meta: MDB_dbi, codec: LMDBRowCodec) throws -> LMDBRowLayouts {
        var layouts: [Layout] = []
        var failure: StoreError?
        try txn.withCursor(meta) { cursor in
            try Array(keyPrefix.utf8).withUnsafeBytes { prefix in
                try cursor.forEach(prefix: prefix) { key, value in
                    let parts = String(decoding: key, as: UTF8.self).dropFirst(keyPrefix.count).split(separator: "/")
                    guard parts.count == 2, let code = UInt16(parts[0]), let count = Int(parts[1]),
                        let sources = try? decodeSources(codec.decodeValues(value), fieldCount: count)
                    else {
                        failure = StoreError(
                            code: .corrupt,
                            message:
                                "the store's record of older row layouts is damaged (entry \(String(decoding: key, as: UTF8.self)))",
                            url: codec.url)
                        return false
                    }
                    layouts.append(Layout(entityCode: code, fieldCount: count, sources: sources))
                    return true
                }
            }
        }
        if let failure { throw failure }
        return LMDBRowLayouts(layouts: layouts)
    }

    /// Replaces the recorded layouts in the `meta` database with these.
    func save(_ txn: LMDBTransaction, meta: MDB_dbi, codec: LMDBRowCodec) throws {
        var stale: [[UInt8]] = []
        try txn.withCursor(meta) { cursor in
            try Array(Self.keyPrefix.utf8).withUnsafeBytes { prefix in
                try cursor.forEach(prefix: prefix) { key, _ in
                    stale.append(Array(key))
                    return true
                }
            }
        }
        for key in stale { _ = try key.withUnsafeBytes { try txn.delete(meta, $0) } }
        for layout in layouts {
            var values: [StoreValue] = []
            for source in layout.sources {
                switch source {
                case .field(let position): values += [.integer(0), .integer(Int64(position))]
                case .fill(let value): values += [.integer(1), value]
                }
            }
            var bytes: [UInt8] = []
            codec.encodeValues(values, into: &bytes)
            try Array("\(Self.keyPrefix)\(layout.entityCode)/\(layout.fieldCount)".utf8).withUnsafeBytes { key in
                try bytes.withUnsafeBytes { value in _ = try txn.put(meta, key, value) }
            }
        }
    }

    private struct Malformed: Error {}

    private static func decodeSources(_ values: [StoreValue], fieldCount: Int) throws -> [Source] {
        guard values.count % 2 == 0 else { throw Malformed() }
        return try stride(from: 0, to: values.count, by: 2).map { index in
            switch values[index] {
            case .integer(0):
                guard case .integer(let position) = values[index + 1], position >= 0, position < fieldCount else {
                    throw Malformed()
                }
                return .field(Int(position))
            case .integer(1): return .fill(values[index + 1])
            default: throw Malformed()
            }
        }
    }
}
