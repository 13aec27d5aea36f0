/// A batch request's store transaction that notes what the request writes, so the coordinator can append one
/// persistent history transaction for it in the same store transaction before it commits.
/// - Note: Not thread-safe; used inside one `performBatch` body.
final class HistoryRecordingTransaction: StoreBatchTransaction {
    private let base: any StoreBatchTransaction
    /// The record so far: the batch's author and context, and every change it wrote.
    private(set) var record: StoreHistoryRecord

    init(base: any StoreBatchTransaction, record: StoreHistoryRecord) {
        self.base = base
        self.record = record
    }

    var storeIdentifier: String { base.storeIdentifier }

    func execute(_ request: StoreFetchRequest) throws -> StoreFetchResult { try base.execute(request) }

    func snapshots(for objectIDs: [ManagedObjectID]) throws -> [RowSnapshot?] { try base.snapshots(for: objectIDs) }

    func relatedObjectIDs(of objectIDs: [ManagedObjectID], through relationship: RelationshipDescription) throws
        -> [[ManagedObjectID]]
    {
        try base.relatedObjectIDs(of: objectIDs, through: relationship)
    }

    func owner(ofUniqueValues values: [StoreValue], declaring: EntityDescription, attributes: [AttributeDescription])
        throws -> ManagedObjectID?
    {
        try base.owner(ofUniqueValues: values, declaring: declaring, attributes: attributes)
    }

    func reserveKeys(for entity: EntityDescription, count: Int) throws -> Int64 {
        try base.reserveKeys(for: entity, count: count)
    }

    func insert(_ rows: StoreBatchRows) throws {
        try base.insert(rows)
        record.changes.reserveCapacity(record.changes.count + rows.count)
        for row in 0..<rows.count {
            record.changes.append(
                .init(objectID: rows.objectID(ofRow: row, storeIdentifier: base.storeIdentifier), changeType: .insert))
        }
    }

    func save(_ request: StoreSaveRequest) throws -> [ManagedObjectID: Int64] {
        // A deleted row's tombstone is read before the save removes it, only for entities that preserve values.
        let needingRows = request.deletes.map(\.objectID).filter { id in
            id.entity.attributes.contains { $0.preservesValueInHistoryOnDeletion }
        }
        var deletedRows: [ManagedObjectID: [StoreValue]] = [:]
        if !needingRows.isEmpty {
            for (id, row) in zip(needingRows, try base.snapshots(for: needingRows)) { deletedRows[id] = row?.values }
        }
        let versions = try base.save(request)
        record.appendChanges(of: request) { deletedRows[$0] }
        return versions
    }

    func appendHistory(_ record: StoreHistoryRecord) throws { try base.appendHistory(record) }

    func update(_ request: StoreBatchUpdate) throws -> [(ManagedObjectID, RowSnapshot)]? {
        guard let rows = try base.update(request) else { return nil }
        // The store wrote no old values to compare: each row records every attribute the request set.
        let names = request.assignments.map(\.attribute.name)
        record.changes.reserveCapacity(record.changes.count + rows.count)
        for (id, _) in rows {
            record.changes.append(.init(objectID: id, changeType: .update, updatedProperties: names))
        }
        return rows
    }
}
