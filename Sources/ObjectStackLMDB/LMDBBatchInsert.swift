import CLMDB
import Foundation
import ObjectStack

/// A batch insert's rows written into one write transaction, without building a save request.
///
/// The rows' keys were reserved past every key in the file, so each row goes in with `MDB_APPEND` (no search,
/// full pages). Unique values are claimed and index entries written per sub-database in key order (`LMDBKeyBatch`),
/// appended where they fall past the last entry. A claimed value held already — by a stored row, or by an earlier
/// row of the batch (equal keys keep the rows' order) — is a conflict; the caller aborts the transaction.
struct LMDBBatchInsert {
    let rows: StoreBatchRows
    let schema: LMDBSchema
    let codec: LMDBRowCodec
    /// The store's identifier, for the IDs a conflict names.
    let store: String
    let url: URL

    func run(_ txn: LMDBTransaction) throws {
        guard rows.count > 0 else { return }
        let entity = rows.entity
        guard let layout = schema.layout(of: entity) else {
            throw StoreError(code: .unsupported, message: "the store does not hold entity \(entity.name)", url: url)
        }
        let width = rows.width
        var uniques = layout.constraints.map { LMDBKeyBatch(dbi: $0.dbi) }
        var indexes = layout.indexes.map { LMDBKeyBatch(dbi: $0.dbi) }
        for index in uniques.indices { uniques[index].reserve(keys: rows.count, bytesPerKey: 32) }
        for index in indexes.indices { indexes[index].reserve(keys: rows.count, bytesPerKey: 40) }
        var last = try txn.withCursor(layout.rows) { cursor -> Int64 in
            guard let (key, _) = try cursor.move(MDB_LAST), key.count == 8 else { return 0 }
            return key.primaryKey(at: 0)
        }
        var buffer: [UInt8] = []
        var key: [UInt8] = []
        try rows.values.withUnsafeBufferPointer { values in
            for row in 0..<rows.count {
                let primaryKey = rows.key(ofRow: row)
                let base = row * width
                buffer.removeAll(keepingCapacity: true)
                codec.encode(entity: entity, version: 1, values: values[base..<base + width], into: &buffer)
                let flags = primaryKey > last ? MDB_APPEND : MDB_NOOVERWRITE
                let rc = try withUnsafeBytes(of: UInt64(bitPattern: primaryKey).bigEndian) { rowKey in
                    try buffer.withUnsafeBytes { try txn.put(layout.rows, rowKey, $0, flags: flags) }
                }
                if rc == MDB_KEYEXIST {
                    throw StoreError(
                        code: .corrupt,
                        message: "primary key \(primaryKey) of \(entity.name) is in the store though it was reserved",
                        url: url, nativeCode: rc)
                }
                last = max(last, primaryKey)
                for (number, constraint) in layout.constraints.enumerated() {
                    key.removeAll(keepingCapacity: true)
                    var hasNull = false
                    for attribute in constraint.attributes {
                        let value = values[base + attribute.storedIndex!]
                        if value.isNull {
                            hasNull = true
                            break
                        }
                        LMDBKeyCodec.append(value, to: &key, codec: codec)
                    }
                    if hasNull { continue }
                    LMDBKeyCodec.fitUniqueKey(&key)
                    uniques[number].add(key, owner: primaryKey)
                }
                for (number, index) in layout.indexes.enumerated() {
                    key.removeAll(keepingCapacity: true)
                    for attribute in index.attributes {
                        LMDBKeyCodec.append(values[base + attribute.storedIndex!], to: &key, codec: codec)
                    }
                    if key.count > LMDBKeyCodec.maximumIndexValueBytes {
                        key.removeLast(key.count - LMDBKeyCodec.maximumIndexValueBytes)
                    }
                    key.appendPrimaryKey(primaryKey)
                    indexes[number].add(key, owner: primaryKey)
                }
            }
        }
        for (number, constraint) in layout.constraints.enumerated() {
            uniques[number].sort()
            try uniques[number].forEachInOrder(txn, otherwise: MDB_NOOVERWRITE) { entry, uniqueKey, flags in
                var existing: UnsafeRawBufferPointer?
                let rc = try withUnsafeBytes(of: UInt64(bitPattern: entry.owner).bigEndian) { owner in
                    try txn.put(constraint.dbi, uniqueKey, owner, flags: flags, existing: &existing)
                }
                guard rc == MDB_KEYEXIST, let existing, existing.count == 8 else { return }
                throw try conflict(
                    constraint, row: rows.row(ofKey: entry.owner)!, holder: existing.primaryKey(at: 0), txn)
            }
        }
        let empty = UnsafeRawBufferPointer(start: nil, count: 0)
        for number in indexes.indices {
            indexes[number].sort()
            let dbi = indexes[number].dbi
            try indexes[number].forEachInOrder(txn, otherwise: 0) { _, key, flags in
                _ = try txn.put(dbi, key, empty, flags: flags)
            }
        }
    }

    /// The conflict of row `row` with the row whose key `holder` holds its unique values.
    private func conflict(_ constraint: LMDBSchema.Constraint, row: Int, holder: Int64, _ txn: LMDBTransaction) throws
        -> StoreError
    {
        var earlier: [ManagedObjectID] = []
        var existing: ManagedObjectID?
        if let earlierRow = rows.row(ofKey: holder) {
            earlier = [rows.objectID(ofRow: earlierRow, storeIdentifier: store)]
        } else if let layout = schema.layout(of: rows.entity), let bytes = try txn.get(layout.rows, primaryKey: holder),
            let entity = codec.entity(code: try codec.header(of: bytes).entityCode)
        {
            existing = ManagedObjectID(entity: entity, storeIdentifier: store, primaryKey: holder)
        }
        let conflict = ConstraintConflict(
            entityName: constraint.declaring.name, attributeNames: constraint.attributes.map(\.name),
            values: constraint.attributes.map { rows.value(row: row, at: $0.storedIndex!) },
            conflictingObjectIDs: earlier + [rows.objectID(ofRow: row, storeIdentifier: store)],
            existingObjectID: existing)
        var error = StoreError(code: .constraintConflict, message: conflict.description, url: url)
        error.constraintConflicts = [conflict]
        return error
    }
}
