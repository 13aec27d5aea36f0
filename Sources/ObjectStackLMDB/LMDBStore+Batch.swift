import CLMDB
import Foundation
import ObjectStack

extension LMDBStore: StoreBatchWriting {
    // MARK: - Batch requests

    /// Runs `body` in one write transaction of the environment. A full map aborts it, grows and runs `body` again.
    public func performBatch<T>(rowsHint: Int, _ body: (any StoreBatchTransaction) throws -> T) throws -> T {
        try checkOpen()
        // A rough size of the rows, index entries and page overhead the body writes, so one growth fits them.
        return try environment.write(growthHint: rowsHint * 512) { txn in
            try body(LMDBBatchTransaction(store: self, txn: txn))
        }
    }
}

/// A batch request's transaction on an LMDB store: one write transaction, which its reads see.
/// - Note: Not thread-safe; valid inside `performBatch`, on its thread.
struct LMDBBatchTransaction: StoreBatchTransaction {
    let store: LMDBStore
    let txn: LMDBTransaction

    var storeIdentifier: String { store.identifier }

    private var resolver: LMDBResolver { LMDBResolver(txn: txn, schema: store.schema, codec: store.codec) }

    func execute(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        try LMDBFetch(request: request, resolver: resolver).run().0
    }

    func snapshots(for objectIDs: [ManagedObjectID]) throws -> [RowSnapshot?] {
        try objectIDs.map { try store.row(of: $0, in: txn) }
    }

    func relatedObjectIDs(of objectIDs: [ManagedObjectID], through relationship: RelationshipDescription) throws
        -> [[ManagedObjectID]]
    {
        let resolver = resolver
        return try objectIDs.map { try resolver.related($0, through: relationship) }
    }

    func owner(ofUniqueValues values: [StoreValue], declaring: EntityDescription, attributes: [AttributeDescription])
        throws -> ManagedObjectID?
    {
        let names = attributes.map(\.name)
        let layouts = declaring.selfAndDescendants.compactMap { store.schema.layout(of: $0) }
        guard
            let constraint = layouts.lazy.flatMap(\.constraints).first(where: {
                $0.declaring === declaring && $0.attributes.map(\.name) == names
            }), let rows = layouts.first?.rows
        else { return nil }
        var key: [UInt8] = []
        for value in values { LMDBKeyCodec.append(value, to: &key, codec: store.codec) }
        LMDBKeyCodec.fitUniqueKey(&key)
        guard let owner = try key.withUnsafeBytes({ try txn.get(constraint.dbi, $0) }), owner.count == 8 else {
            return nil
        }
        let primaryKey = owner.primaryKey(at: 0)
        guard let bytes = try txn.get(rows, primaryKey: primaryKey),
            let entity = store.codec.entity(code: try store.codec.header(of: bytes).entityCode)
        else { return nil }
        return ManagedObjectID(entity: entity, storeIdentifier: store.identifier, primaryKey: primaryKey)
    }

    func reserveKeys(for entity: EntityDescription, count: Int) throws -> Int64 {
        try store.reserveKeys(for: entity, count: count, in: txn)
    }

    func insert(_ rows: StoreBatchRows) throws {
        try LMDBBatchInsert(
            rows: rows, schema: store.schema, codec: store.codec, store: store.identifier, url: store.url
        )
        .run(txn)
    }

    func save(_ request: StoreSaveRequest) throws -> [ManagedObjectID: Int64] {
        let versions = try LMDBSave(request: request, schema: store.schema, codec: store.codec, url: store.url).run(txn)
        if let record = request.history { try appendHistory(record) }
        return versions
    }

    func appendHistory(_ record: StoreHistoryRecord) throws {
        if store.tracksHistory { try store.history.append(record, txn) }
    }
}
