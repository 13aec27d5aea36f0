import Foundation

/// A batch update as it runs inside its store transaction: the store carries it out itself when it can (SQLite's
/// `UPDATE … SET`); otherwise the matching rows are read, each one's new values computed from it and written through
/// the store's save (version checks, uniqueness constraints, index entries), each row's version one more.
///
/// `run` may be called more than once for one request (a store that retries its transaction), so it changes
/// nothing but the transaction.
struct BatchUpdatePlan {
    /// What the store receives: the rows to update and each attribute's expression.
    let update: StoreBatchUpdate
    /// The rows to update, for the row-by-row path (result type `.objects`).
    let fetch: StoreFetchRequest
    /// Whether the result lists IDs.
    let wantsIDs: Bool

    func run(_ txn: any StoreBatchTransaction) throws -> BatchChanges {
        var changes = BatchChanges()
        if let rows = try txn.update(update) {
            changes.updated = rows.map { (id: $0.0, row: $0.1) }
        } else {
            changes.updated = try updateRowByRow(txn)
        }
        changes.writtenCount = changes.updated.count
        if wantsIDs { changes.writtenIDs = changes.updatedIDs }
        return changes
    }

    /// Reads the matching rows, computes each one's values from its own and saves them.
    private func updateRowByRow(_ txn: any StoreBatchTransaction) throws -> [(id: ManagedObjectID, row: RowSnapshot)] {
        guard case .objects(let rows) = try txn.execute(fetch) else { return [] }
        let evaluator = PredicateEvaluator(resolver: BatchRowResolver())
        // Where each value goes in a row of each entity met (sub-entities' rows hold inherited attributes too).
        var positions: [ObjectIdentifier: [(Int, StoreBatchUpdate.Assignment)]] = [:]
        var request = StoreSaveRequest()
        request.updates.reserveCapacity(rows.count)
        for (id, row) in rows {
            let entity = id.entity
            let slots =
                positions[ObjectIdentifier(entity)]
                ?? {
                    let found = update.assignments.compactMap { assignment in
                        entity.attributesByName[assignment.attribute.name]?.storedIndex.map { ($0, assignment) }
                    }
                    positions[ObjectIdentifier(entity)] = found
                    return found
                }()
            var updated = row.values
            for (slot, assignment) in slots {
                // Computed from the row as it was read: one assignment never sees another's new value.
                let value = try evaluator.value(of: assignment.value, on: (id, row), now: update.now)
                guard let stored = PropertyExpression.storedValue(value, as: assignment.attribute.type),
                    !stored.isNull || assignment.attribute.isOptional
                else {
                    throw update.storeFailure(attribute: assignment.attribute, objectID: id, value: value)
                }
                updated[slot] = stored
            }
            request.updates.append(
                .init(objectID: id, values: updated, expectedVersion: row.version, committedValues: row.values))
        }
        guard !request.updates.isEmpty else { return [] }
        let versions = try txn.save(request)
        return request.updates.map { update in
            (
                update.objectID,
                RowSnapshot(
                    values: update.values, version: versions[update.objectID] ?? (update.expectedVersion ?? 0) + 1)
            )
        }
    }
}
