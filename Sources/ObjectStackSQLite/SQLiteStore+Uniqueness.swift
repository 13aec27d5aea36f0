import Foundation
import ObjectStack

extension SQLiteStore {
    /// A uniqueness constraint as the save's check uses it, worked out once per entity and save (building its key
    /// and names for every row was a seventh of a bulk insert).
    private struct Constraint {
        let declaring: EntityDescription
        let names: [String]
        let storedIndices: [Int]
        let query: String
        /// The constraint's number among every constraint the save meets: its table of claimed values.
        let number: Int
    }

    /// Checks every uniqueness constraint of every written row against the save itself and the store.
    ///
    /// Done with queries rather than UNIQUE indexes, so the error names the object that already holds the
    /// values, and so a save that swaps values between objects is not refused half-way. The rows are checked in
    /// request order (its inserts, then its updates): the first to claim a combination keeps it, a later claimant
    /// conflicts with it, and conflicts are reported in that order.
    ///
    /// An update that keeps a constraint's values of the version it read (checked before) claims nothing: the
    /// store held its row with them already. Another row of the save claiming them meets that row in the store,
    /// and the conflict is reported as the keeper's claim would have made it; a save of 100,000 updated counters
    /// hashed every row's name into a table for nothing.
    func checkUniqueness(_ request: StoreSaveRequest, _ db: SQLiteConnection) throws {
        var conflicts: [(order: Int64, conflict: ConstraintConflict)] = []
        var claimed: [[[StoreValue]: ManagedObjectID]] = []
        var numbers: [String: Int] = [:]
        var constraintsByEntity: [ObjectIdentifier: [Constraint]] = [:]
        func constraints(of entity: EntityDescription) -> [Constraint] {
            if let known = constraintsByEntity[ObjectIdentifier(entity)] { return known }
            let found = zip(entity.applicableUniquenessConstraints, entity.applicableUniquenessStoredIndices).map {
                constraint, storedIndices in
                let (declaring, attributes) = constraint
                let key = "\(declaring.name):" + attributes.map(\.name).joined(separator: ",")
                let number =
                    numbers[key]
                    ?? {
                        numbers[key] = claimed.count
                        claimed.append([:])
                        return claimed.count - 1
                    }()
                return Constraint(
                    declaring: declaring, names: attributes.map(\.name),
                    storedIndices: storedIndices,
                    query: uniquenessQuery(declaring, attributes), number: number)
            }
            constraintsByEntity[ObjectIdentifier(entity)] = found
            return found
        }
        // A hierarchy with no rows yet cannot clash with the store, only within the save: skip the lookups
        // (the common bulk import into a new store).
        var isEmpty: [String: Bool] = [:]
        func tableIsEmpty(_ table: SQLiteSchema.Table) throws -> Bool {
            if let known = isEmpty[table.name] { return known }
            let statement = try db.statement("SELECT NOT EXISTS (SELECT 1 FROM \(SQLiteSchema.quote(table.name)))")
            defer { statement.reset() }
            let empty = try statement.step() && statement.int(0) == 1
            isEmpty[table.name] = empty
            return empty
        }
        let firstUpdate = request.inserts.count
        // The rows the save deletes (-1) and updates (their request position), made when a claim first meets a
        // stored row: a save whose claims meet none never builds it.
        var savedRows: [RowKey: Int]?
        func savedRow(_ row: RowKey) -> Int? {
            if savedRows == nil {
                var rows: [RowKey: Int] = [:]
                rows.reserveCapacity(request.deletes.count + request.updates.count)
                for delete in request.deletes { rows[RowKey(delete.objectID)] = -1 }
                for (index, update) in request.updates.enumerated() {
                    rows[RowKey(update.objectID)] = firstUpdate + index
                }
                savedRows = rows
            }
            return savedRows?[row]
        }
        func check(_ id: ManagedObjectID, _ values: [StoreValue], _ update: StoreSaveRequest.Update?, at position: Int)
            throws
        {
            for (ordinal, constraint) in constraints(of: id.entity).enumerated() {
                if let update, update.keepsCommittedValues(at: constraint.storedIndices) { continue }
                let combination = constraint.storedIndices.map { values[$0] }
                if combination.contains(where: \.isNull) { continue }
                let order = Int64(position) << 16 | Int64(ordinal)
                // Room for every written row at the first claim: growing a table of value lists rehashes all of
                // them, and a save whose updates all keep their values (claiming nothing) makes no room at all.
                if claimed[constraint.number].isEmpty {
                    claimed[constraint.number].reserveCapacity(request.inserts.count + request.updates.count)
                }
                if let other = claimed[constraint.number].updateValue(id, forKey: combination) {
                    claimed[constraint.number][combination] = other
                    conflicts.append(
                        (
                            order,
                            ConstraintConflict(
                                entityName: constraint.declaring.name, attributeNames: constraint.names,
                                values: combination, conflictingObjectIDs: [other, id], existingObjectID: nil)
                        ))
                    continue
                }
                let table = schema.table(for: constraint.declaring)
                if try tableIsEmpty(table) { continue }
                let statement = try db.statement(constraint.query)
                defer { statement.reset() }
                for (index, value) in combination.enumerated() { statement.bind(value, at: Int32(index + 1)) }
                statement.bindInt(id.key, at: Int32(combination.count + 1))
                while try statement.step() {
                    let ownerKey = statement.int(0)
                    if let saved = savedRow(RowKey(root: table.root.name, key: ownerKey)) {
                        // A deleted row gives its values up, and so does an updated one that changes them (its
                        // claim is checked in its turn); one that keeps them holds them.
                        guard saved >= firstUpdate else { continue }
                        let keeper = request.updates[saved - firstUpdate]
                        let keeperConstraints = constraints(of: keeper.objectID.entity)
                        guard
                            let keeperOrdinal = keeperConstraints.firstIndex(where: { $0.number == constraint.number }),
                            keeper.keepsCommittedValues(at: keeperConstraints[keeperOrdinal].storedIndices)
                        else { continue }
                        // Whichever comes first in the request claimed the values; the other conflicts in its turn.
                        let (pair, turn) =
                            saved < position
                            ? ([keeper.objectID, id], order)
                            : ([id, keeper.objectID], Int64(saved) << 16 | Int64(keeperOrdinal))
                        if saved < position { claimed[constraint.number][combination] = keeper.objectID }
                        conflicts.append(
                            (
                                turn,
                                ConstraintConflict(
                                    entityName: constraint.declaring.name, attributeNames: constraint.names,
                                    values: combination, conflictingObjectIDs: pair, existingObjectID: nil)
                            ))
                        break
                    }
                    let entity = table.entitiesByCode[statement.int(1)] ?? id.entity
                    let existing = ManagedObjectID(entity: entity, storeIdentifier: identifier, primaryKey: ownerKey)
                    conflicts.append(
                        (
                            order,
                            ConstraintConflict(
                                entityName: constraint.declaring.name, attributeNames: constraint.names,
                                values: combination, conflictingObjectIDs: [id], existingObjectID: existing)
                        ))
                    break
                }
            }
        }
        for (index, insert) in request.inserts.enumerated() {
            try check(insert.objectID, insert.values, nil, at: index)
        }
        for (index, update) in request.updates.enumerated() {
            try check(update.objectID, update.values, update, at: firstUpdate + index)
        }
        if !conflicts.isEmpty { throw StoreError(constraintConflicts: conflicts, url: url) }
    }

    private func uniquenessQuery(_ declaring: EntityDescription, _ attributes: [AttributeDescription]) -> String {
        let table = schema.table(for: declaring)
        let tests = attributes.map { "\(schema.column($0)) = ?" }.joined(separator: " AND ")
        return "SELECT Z_PK, Z_ENT FROM \(SQLiteSchema.quote(table.name)) WHERE \(tests) "
            + "AND Z_ENT IN (\(table.codeList(declaring.selfAndDescendants))) AND Z_PK != ?"
    }
}
