import CLMDB
import Foundation
import ObjectStack

/// A full walk of a store inside one read transaction: every row decodes and is of its rows database's hierarchy,
/// every index, uniqueness and referrer entry a row owns is there (and no other: each such database holds exactly
/// as many entries as the rows own), every to-one points at a row that exists, every link has its mirror, and no
/// row's key is past the last key the file reserved (a key handed out twice would be).
///
/// LMDB itself checks no page's contents: a crash that left a page of the wrong version shows as a row that does not
/// decode, an entry without its row, or a row without its entry.
/// - Note: Not thread-safe: runs inside the one transaction that made it.
struct LMDBIntegrityWalk {
    let txn: LMDBTransaction
    let schema: LMDBSchema
    let codec: LMDBRowCodec
    /// The entities whose rows the store holds (the rest of the model has no layout).
    let entities: [EntityDescription]

    /// More problems than this say nothing more: the walk stops listing them.
    private static let problemLimit = 20

    /// The problems found, each in words; empty for a whole store.
    func run() throws -> [String] {
        var problems: [String] = []
        func note(_ problem: String) {
            if problems.count < Self.problemLimit { problems.append(problem) }
        }
        let layouts = entities.compactMap { entity in schema.layout(of: entity).map { (entity, $0) } }
        var owned: [MDB_dbi: Int] = [:]
        for (_, layout) in layouts {
            for index in layout.indexes { owned[index.dbi] = 0 }
            for constraint in layout.constraints { owned[constraint.dbi] = 0 }
            for toOne in layout.toOnes { owned[toOne.dbi] = 0 }
        }
        var roots: [MDB_dbi: EntityDescription] = [:]
        for (entity, layout) in layouts { roots[layout.rows] = entity.rootEntity }
        var targets: [(ManagedObjectID, Int64, String)] = []
        var key: [UInt8] = []
        for (rows, root) in roots.sorted(by: { $0.key < $1.key }) {
            var lastRow: Int64 = 0
            /// Checks one row and the entries it owns.
            func visit(_ rowKey: UnsafeRawBufferPointer, _ bytes: UnsafeRawBufferPointer) throws {
                guard rowKey.count == 8 else {
                    return note("rows/\(root.name) has a key of \(rowKey.count) bytes, not a primary key")
                }
                let primaryKey = rowKey.primaryKey(at: 0)
                lastRow = max(lastRow, primaryKey)
                let values: [StoreValue]
                let layout: LMDBSchema.EntityLayout
                let entity: EntityDescription
                do {
                    let header = try codec.header(of: bytes)
                    guard let found = codec.entity(code: header.entityCode), let foundLayout = schema.layout(of: found),
                        foundLayout.rows == rows
                    else {
                        return note(
                            "row \(primaryKey) of rows/\(root.name) has entity code \(header.entityCode), not one of "
                                + "the hierarchy")
                    }
                    entity = found
                    layout = foundLayout
                    values = try codec.decodeAll(bytes, header: header)
                } catch {
                    return note("row \(primaryKey) of rows/\(root.name) does not decode: \(error)")
                }
                guard values.count == entity.storedProperties.count else {
                    return note(
                        "\(entity.name) \(primaryKey) has \(values.count) fields, the entity "
                            + "\(entity.storedProperties.count)")
                }
                for index in layout.indexes {
                    codec.indexKey(index.attributes, values, primaryKey, into: &key)
                    owned[index.dbi, default: 0] += 1
                    if try key.withUnsafeBytes({ try txn.get(index.dbi, $0) }) == nil {
                        let names = index.attributes.map(\.name).joined(separator: ",")
                        note("\(entity.name) \(primaryKey) has no entry in its index on \(names)")
                    }
                }
                for constraint in layout.constraints {
                    let combination = constraint.attributes.map { values[$0.storedIndex!] }
                    if combination.contains(where: \.isNull) { continue }
                    codec.uniqueKey(combination, into: &key)
                    owned[constraint.dbi, default: 0] += 1
                    let owner = try key.withUnsafeBytes { k -> Int64? in
                        guard let value = try txn.get(constraint.dbi, k), value.count == 8 else { return nil }
                        return value.primaryKey(at: 0)
                    }
                    if owner != primaryKey {
                        let names = constraint.attributes.map(\.name).joined(separator: ",")
                        note("\(entity.name) \(primaryKey) does not own its unique values (\(names))")
                    }
                }
                for toOne in layout.toOnes {
                    guard case .objectID(let target) = values[toOne.relationship.storedIndex!] else { continue }
                    LMDBRowCodec.referrerKey(target.key, primaryKey, into: &key)
                    owned[toOne.dbi, default: 0] += 1
                    if try key.withUnsafeBytes({ try txn.get(toOne.dbi, $0) }) == nil {
                        note("\(entity.name) \(primaryKey) has no referrer entry for \(toOne.relationship.name)")
                    }
                    targets.append((target, primaryKey, "\(entity.name).\(toOne.relationship.name)"))
                }
            }
            try txn.withCursor(rows) { cursor in
                var entry = try cursor.move(MDB_FIRST)
                while let (rowKey, bytes) = entry {
                    try visit(rowKey, bytes)
                    entry = try cursor.move(MDB_NEXT)
                }
            }
            try checkReservation(root, lastRow: lastRow, note)
        }
        for (dbi, expected) in owned.sorted(by: { $0.key < $1.key }) {
            let count = try txn.entryCount(dbi)
            if count != expected {
                note("a sub-database (\(name(of: dbi))) holds \(count) entries; its rows own \(expected)")
            }
        }
        for (target, referrer, relationship) in targets {
            guard let rows = schema.layout(of: target.entity)?.rows else { continue }
            if try txn.get(rows, primaryKey: target.key) == nil {
                note("\(relationship) of row \(referrer) points at \(target.entityName) \(target.key), which is gone")
            }
        }
        for table in schema.joinTables.values.sorted(by: { $0.owner.storageKey < $1.owner.storageKey }) {
            try checkLinks(table, note)
        }
        return problems
    }

    /// The last key reserved for a hierarchy must be at or past its last row.
    private func checkReservation(_ root: EntityDescription, lastRow: Int64, _ note: (String) -> Void) throws {
        let reserved = try LMDBStore.lastKeyName(root).withUnsafeBytes { k -> Int64? in
            guard let value = try txn.get(schema.meta, k), value.count == 8 else { return nil }
            return value.primaryKey(at: 0)
        }
        if let reserved, lastRow > reserved {
            note("rows/\(root.name) has key \(lastRow), past the last key the file reserved (\(reserved))")
        }
    }

    /// Every forward link has its backward mirror, and the two directions hold as many entries.
    private func checkLinks(_ table: LMDBSchema.JoinTable, _ note: (String) -> Void) throws {
        let forward = try txn.entryCount(table.forward)
        let backward = try txn.entryCount(table.backward)
        if forward != backward {
            note("links/\(table.owner.storageKey) has \(forward) entries, its mirror \(backward)")
        }
        try txn.withCursor(table.forward) { cursor in
            var entry = try cursor.move(MDB_FIRST)
            while let (key, value) = entry {
                entry = try cursor.move(MDB_NEXT)
                guard key.count == 16, value.count == 10 else {
                    note("links/\(table.owner.storageKey) has an entry of the wrong size")
                    continue
                }
                var mirror: [UInt8] = []
                mirror.appendPrimaryKey(value.primaryKey(at: 2))
                mirror.append(contentsOf: key[8..<16])
                let back = try mirror.withUnsafeBytes { try txn.get(table.backward, $0) }
                if back == nil || back!.count != 10 || back!.primaryKey(at: 2) != key.primaryKey(at: 0) {
                    note("links/\(table.owner.storageKey): the link from \(key.primaryKey(at: 0)) has no mirror")
                }
            }
        }
    }

    /// A sub-database's name, for messages.
    private func name(of dbi: MDB_dbi) -> String {
        for entity in entities {
            guard let layout = schema.layout(of: entity) else { continue }
            if let index = layout.indexes.first(where: { $0.dbi == dbi }) {
                return "index on \(entity.name) " + index.attributes.map(\.name).joined(separator: ",")
            }
            if let constraint = layout.constraints.first(where: { $0.dbi == dbi }) {
                return "unique " + constraint.attributes.map(\.name).joined(separator: ",")
            }
            if let toOne = layout.toOnes.first(where: { $0.dbi == dbi }) {
                return "referrers of \(entity.name).\(toOne.relationship.name)"
            }
        }
        return "dbi \(dbi)"
    }
}
