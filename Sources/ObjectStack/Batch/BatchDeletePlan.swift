/// A batch delete as it runs inside its store transaction, with the delete rules Core Data applies to batch
/// deletes (the rule table of the BatchRequests article cites a public source for each row):
/// - `.cascade`: the destinations are deleted too, and their own relationships' rules apply;
/// - `.nullify`: the destination's reference back is cleared and its version moves on; a to-one whose inverse is a
///   to-many moves the destination's version on (its to-many changed); many-to-many links are removed. When the
///   inverse is required and the nullify would leave a destination without it, the delete fails ("Batch delete
///   failed due to mandatory OTO nullify inverse", likewise OTM and MTM), in the shapes public reports of that
///   error show: a to-one whose required inverse is a to-many (OTO) or a many-to-many (MTM), when the destination
///   would be left with no member; a to-many whose inverse is a required to-one (OTM), whenever a destination
///   stays. A to-one whose inverse is a required to-one is cleared: no report shows Core Data refusing it;
/// - `.noAction`: nothing;
/// - `.deny`: the request is refused ("Delete rule is not supported for batch deletes").
///
/// This plan does it through the store's save, in the same transaction: it gathers the rows to delete (the fetch's,
/// then the cascade's, level by level), then the nullify updates; a destination that the request deletes anyway is
/// neither updated nor counted against a mandatory inverse. `run` may be called more than once for one request (a
/// store that retries its transaction), so it changes nothing but the transaction.
struct BatchDeletePlan {
    /// The rows to delete: a fetch (result type `.objectIDs`), or IDs.
    enum Target {
        case fetch(StoreFetchRequest)
        case objectIDs([ManagedObjectID])
    }

    let target: Target
    /// Whether the result lists IDs.
    let wantsIDs: Bool

    /// Refuses a delete that would reach an entity with a deny relationship, as Core Data refuses to build its
    /// triggers: from `entities`, through every cascade relationship.
    static func checkRules(deleting entities: [EntityDescription]) throws {
        var seen = Set<ObjectIdentifier>()
        var queue = entities
        while let entity = queue.popLast() {
            guard seen.insert(ObjectIdentifier(entity)).inserted else { continue }
            for relationship in entity.relationships where !relationship.isTransient {
                switch relationship.deleteRule {
                case .deny:
                    throw ObjectStackError(
                        code: .invalidArgument,
                        message:
                            "batch delete refused, nothing deleted: \(relationship.entity.name).\(relationship.name) has "
                            + "the deny delete rule, which batch deletes do not support (as in Core Data); delete "
                            + "those objects through a context")
                case .cascade:
                    queue += relationship.destinationEntity.selfAndDescendants.filter { !$0.isAbstract }
                case .nullify, .noAction:
                    break
                }
            }
        }
    }

    func run(_ txn: any StoreBatchTransaction) throws -> BatchChanges {
        let first: [ManagedObjectID]
        switch target {
        case .fetch(let request):
            guard case .objectIDs(let ids) = try txn.execute(request) else { return BatchChanges() }
            first = ids
        case .objectIDs(let ids):
            first = ids
        }
        // The rows to delete, level by level through cascade rules; each deleted row's values, for its to-ones.
        var deleted: [ManagedObjectID] = []
        var rows: [ManagedObjectID: RowSnapshot] = [:]
        var level = first
        while !level.isEmpty {
            let snapshots = try txn.snapshots(for: level)
            var found: [(ManagedObjectID, RowSnapshot)] = []
            for (id, row) in zip(level, snapshots) {
                guard let row, rows[id] == nil else { continue }
                rows[id] = row
                deleted.append(id)
                found.append((id, row))
            }
            var next: [ManagedObjectID] = []
            for group in Self.byEntity(found) {
                for relationship in group.entity.relationships
                where !relationship.isTransient && relationship.deleteRule == .cascade {
                    for destinations in try destinations(of: group.rows, through: relationship, txn) {
                        next += destinations.filter { rows[$0] == nil }
                    }
                }
            }
            level = next
        }
        let updates = try nullify(deleted, rows, txn)
        var request = StoreSaveRequest()
        request.deletes = deleted.map { .init(objectID: $0, expectedVersion: nil) }
        request.updates = updates
        var changes = BatchChanges()
        guard !request.isEmpty else { return changes }
        let versions = try txn.save(request)
        changes.deleted = deleted
        changes.updated = updates.map { update in
            (
                update.objectID,
                RowSnapshot(
                    values: update.values, version: versions[update.objectID] ?? (update.expectedVersion ?? 0) + 1)
            )
        }
        changes.writtenCount = deleted.count
        if wantsIDs { changes.writtenIDs = deleted }
        return changes
    }

    // MARK: - Nullify

    /// The updates the nullify rules of the deleted rows' relationships make to the rows that remain; throws when
    /// an inverse the rule would clear is not optional.
    private func nullify(
        _ deleted: [ManagedObjectID], _ rows: [ManagedObjectID: RowSnapshot], _ txn: any StoreBatchTransaction
    ) throws -> [StoreSaveRequest.Update] {
        // The rows to update: each one's stored row and its values so far.
        var order: [ManagedObjectID] = []
        var changed: [ManagedObjectID: [StoreValue]] = [:]
        var stored: [ManagedObjectID: RowSnapshot] = [:]
        func touch(_ targets: [ManagedObjectID]) throws {
            let fresh = targets.filter { stored[$0] == nil }
            guard !fresh.isEmpty else { return }
            for (id, row) in zip(fresh, try txn.snapshots(for: fresh)) {
                guard let row, stored[id] == nil else { continue }
                stored[id] = row
                changed[id] = row.values
                order.append(id)
            }
        }
        for group in Self.byEntity(deleted.map { ($0, rows[$0]!) }) {
            for relationship in group.entity.relationships
            where !relationship.isTransient && relationship.deleteRule == .nullify {
                guard let inverse = relationship.inverse, !inverse.isTransient else { continue }
                let all = try destinations(of: group.rows, through: relationship, txn)
                for ((source, _), destinations) in zip(group.rows, all) {
                    let remaining = destinations.filter { rows[$0] == nil }
                    guard !remaining.isEmpty else { continue }
                    if !inverse.isOptional {
                        try checkMandatory(source, relationship, inverse, remaining, rows, txn)
                    }
                    // A join-table relationship's links go with the deleted row; Core Data moves no version for it.
                    if relationship.storage == .joinTable { continue }
                    try touch(remaining)
                    // The destination's own reference back, when it holds one (a to-one inverse), is cleared; a
                    // to-many inverse is read through this row's reference, so only its version moves.
                    guard !inverse.isToMany, let index = inverse.storedIndex else { continue }
                    for id in remaining where changed[id] != nil {
                        if case .objectID(let target) = changed[id]![index], target == source {
                            changed[id]![index] = .null
                        }
                    }
                }
            }
        }
        return order.map { id in
            .init(
                objectID: id, values: changed[id]!, expectedVersion: stored[id]!.version,
                committedValues: stored[id]!.values)
        }
    }

    /// Throws Core Data's batch-delete failure when clearing `inverse` (required) on `destinations` would leave it
    /// empty, in the shapes public reports of the failure show (see the type's comment).
    private func checkMandatory(
        _ source: ManagedObjectID, _ relationship: RelationshipDescription, _ inverse: RelationshipDescription,
        _ destinations: [ManagedObjectID], _ rows: [ManagedObjectID: RowSnapshot], _ txn: any StoreBatchTransaction
    ) throws {
        let shape: String
        switch (relationship.isToMany, inverse.isToMany) {
        case (true, true): shape = "MTM"
        case (true, false): shape = "OTM"
        case (false, true): shape = "OTO"
        // One-to-one with a required inverse: no public report shows Core Data refusing it, so it is not refused.
        case (false, false): return
        }
        var stranded = destinations
        if inverse.isToMany {
            // A destination keeps its to-many while it has another member that stays.
            let members = try txn.relatedObjectIDs(of: destinations, through: inverse)
            stranded = zip(destinations, members).filter { _, members in
                !members.contains { $0 != source && rows[$0] == nil }
            }.map(\.0)
            guard !stranded.isEmpty else { return }
        }
        let target = stranded[0]
        let message =
            "Batch delete failed due to mandatory \(shape) nullify inverse on "
            + "\(relationship.entity.name)/\(relationship.name): deleting \(source) would leave "
            + "\(target).\(inverse.name), which is required, without \(source.entityName)"
        var error = ObjectStackError(
            code: .validationFailed, message: "batch delete failed, nothing deleted: \(message)")
        error.validationFailures = stranded.map { id in
            ValidationFailure(
                objectID: id, entityName: id.entityName, key: inverse.name, reason: .missingValue, message: message)
        }
        throw error
    }

    // MARK: - Reading relationships

    /// Rows grouped by entity, in the order their entities are first met.
    private static func byEntity(_ rows: [(ManagedObjectID, RowSnapshot)]) -> [(
        entity: EntityDescription, rows: [(ManagedObjectID, RowSnapshot)]
    )] {
        var order: [EntityDescription] = []
        var groups: [ObjectIdentifier: [(ManagedObjectID, RowSnapshot)]] = [:]
        for row in rows {
            let key = ObjectIdentifier(row.0.entity)
            if groups[key] == nil { order.append(row.0.entity) }
            groups[key, default: []].append(row)
        }
        return order.map { ($0, groups[ObjectIdentifier($0)]!) }
    }

    /// The objects each row's relationship holds: a to-one's reference from the row, a to-many's members from the
    /// store (one request for all the rows).
    private func destinations(
        of rows: [(ManagedObjectID, RowSnapshot)], through relationship: RelationshipDescription,
        _ txn: any StoreBatchTransaction
    ) throws -> [[ManagedObjectID]] {
        guard relationship.isToMany else {
            return rows.map { _, row in
                guard let index = relationship.storedIndex, case .objectID(let id) = row.value(at: index)
                else { return [] }
                return [id]
            }
        }
        return try txn.relatedObjectIDs(of: rows.map(\.0), through: relationship)
    }
}
