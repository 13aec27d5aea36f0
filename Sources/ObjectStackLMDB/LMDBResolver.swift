import CLMDB
import Foundation
import ObjectStack

/// A stored row as a fetch sees it: its bytes in the memory map, decoded field by field on demand.
///
/// Valid only inside the transaction that read it.
struct LMDBRow {
    let entity: EntityDescription
    let key: Int64
    let bytes: UnsafeRawBufferPointer
    let header: LMDBRowCodec.Header
}

/// Reads an LMDB store's rows for the predicate evaluator, inside one read transaction.
struct LMDBResolver: PredicateResolver {
    let txn: LMDBTransaction
    let schema: LMDBSchema
    let codec: LMDBRowCodec

    /// The row under a primary key in a rows database, or nil.
    @inline(__always)
    func row(in dbi: MDB_dbi, key: Int64) throws -> LMDBRow? {
        guard let bytes = try txn.get(dbi, primaryKey: key) else { return nil }
        return try row(key: key, bytes: bytes)
    }

    /// A row from its key and encoded bytes.
    @inline(__always)
    func row(key: Int64, bytes: UnsafeRawBufferPointer) throws -> LMDBRow {
        let header = try codec.header(of: bytes)
        guard let entity = codec.entity(code: header.entityCode) else {
            throw StoreError(
                code: .corrupt, message: "a stored row names unknown entity code \(header.entityCode)",
                url: codec.url)
        }
        return LMDBRow(entity: entity, key: key, bytes: bytes, header: header)
    }

    func row(for objectID: ManagedObjectID) throws -> LMDBRow? {
        guard !objectID.isTemporaryID, let layout = schema.layout(of: objectID.entity) else { return nil }
        return try row(in: layout.rows, key: objectID.key)
    }

    func objectID(of row: LMDBRow) -> ManagedObjectID {
        ManagedObjectID(entity: row.entity, storeIdentifier: codec.storeIdentifier, primaryKey: row.key)
    }

    func value(of attribute: AttributeDescription, in row: LMDBRow) throws -> StoreValue {
        guard let index = attribute.storedIndex else { return .null }
        return try codec.decodeField(index, of: row.bytes, header: row.header)
    }

    func destination(of relationship: RelationshipDescription, in row: LMDBRow) throws -> ManagedObjectID? {
        guard let index = relationship.storedIndex,
            case .objectID(let id) = try codec.decodeField(index, of: row.bytes, header: row.header)
        else { return nil }
        return id
    }

    func destinations(of relationship: RelationshipDescription, in row: LMDBRow) throws -> [ManagedObjectID] {
        try related(objectID(of: row), through: relationship)
    }

    /// The members of a to-many relationship: through the inverse's referrer index in primary-key order, or
    /// from the join table in link order.
    func related(_ objectID: ManagedObjectID, through relationship: RelationshipDescription) throws -> [ManagedObjectID]
    {
        guard !objectID.isTemporaryID else { return [] }
        var prefix = [UInt8]()
        prefix.appendPrimaryKey(objectID.key)
        let dbi: MDB_dbi
        switch relationship.storage {
        case .foreignKey:
            return []
        case .inverseForeignKey:
            guard let inverse = relationship.inverse, let referrers = schema.referrers[inverse.storageKey] else {
                return []
            }
            dbi = referrers
        case .joinTable:
            let owner = relationship.joinTableOwner
            guard let table = schema.joinTables[owner.storageKey] else { return [] }
            dbi = owner === relationship ? table.forward : table.backward
        }
        var result: [ManagedObjectID] = []
        try txn.withCursor(dbi) { cursor in
            try prefix.withUnsafeBytes { prefix in
                try cursor.forEach(prefix: prefix) { key, value in
                    // Referrers: key = target + referrer, value = code. Links: key = side + sequence, value = code + key.
                    guard value.count >= 2,
                        let entity = codec.entity(code: UInt16(value[0]) | UInt16(value[1]) << 8)
                    else {
                        throw StoreError(
                            code: .corrupt, message: "a relationship entry does not decode", url: codec.url)
                    }
                    let target = value.count >= 10 ? value.primaryKey(at: 2) : key.trailingPrimaryKey
                    result.append(
                        ManagedObjectID(entity: entity, storeIdentifier: codec.storeIdentifier, primaryKey: target))
                    return true
                }
            }
        }
        return result
    }
}
