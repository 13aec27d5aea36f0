/// A batch update as it runs inside its store transaction: the matching rows read, their new values written through
/// the store's save (version checks, uniqueness constraints, index entries), each row's version one more.
///
/// `run` may be called more than once for one request (a store that retries its transaction), so it changes
/// nothing but the transaction.
struct BatchUpdatePlan {
    /// The rows to update (result type `.objects`).
    let fetch: StoreFetchRequest
    /// The new values, by attribute name, of the attributes' types.
    let values: [(name: String, value: StoreValue)]
    /// Whether the result lists IDs.
    let wantsIDs: Bool

    func run(_ txn: any StoreBatchTransaction) throws -> BatchChanges {
        guard case .objects(let rows) = try txn.execute(fetch) else { return BatchChanges() }
        // Where each value goes in a row of each entity met (sub-entities' rows hold inherited attributes too).
        var positions: [ObjectIdentifier: [(Int, StoreValue)]] = [:]
        var request = StoreSaveRequest()
        request.updates.reserveCapacity(rows.count)
        for (id, row) in rows {
            let entity = id.entity
            let slots =
                positions[ObjectIdentifier(entity)]
                ?? {
                    let found = values.compactMap { name, value in
                        entity.attributesByName[name]?.storedIndex.map { ($0, value) }
                    }
                    positions[ObjectIdentifier(entity)] = found
                    return found
                }()
            var updated = row.values
            for (slot, value) in slots { updated[slot] = value }
            request.updates.append(
                .init(objectID: id, values: updated, expectedVersion: row.version, committedValues: row.values))
        }
        var changes = BatchChanges()
        guard !request.updates.isEmpty else { return changes }
        let versions = try txn.save(request)
        changes.updated = request.updates.map { update in
            (
                update.objectID,
                RowSnapshot(
                    values: update.values, version: versions[update.objectID] ?? (update.expectedVersion ?? 0) + 1)
            )
        }
        changes.writtenCount = rows.count
        if wantsIDs { changes.writtenIDs = rows.map(\.0) }
        return changes
    }
}
