/// A batch insert as it runs inside its store transaction: under a merging policy, rows that repeat a constrained
/// value are merged (into an earlier row of the request, or the stored row that holds it: an upsert); the rest
/// get new keys and are inserted.
///
/// `run` may be called more than once for one request (a store that retries its transaction), so it changes
/// nothing but the transaction.
struct BatchInsertPlan {
    /// The request's rows, keys not given yet.
    let rows: StoreBatchRows
    /// Which values each object gave (under a merging policy), as `BatchRowBuilder.given`.
    let given: [Bool]
    /// The executing context's merge policy.
    let mergePolicy: MergePolicy
    /// Whether the result lists IDs.
    let wantsIDs: Bool

    /// Whether constrained values are merged rather than refused.
    private var upserts: Bool {
        mergePolicy != .error && !rows.entity.applicableUniquenessConstraints.isEmpty
    }

    func run(_ txn: any StoreBatchTransaction) throws -> BatchChanges {
        var changes = BatchChanges()
        guard rows.count > 0 else { return changes }
        var inserting = rows
        // The original position of each row inserted, and what each original row became.
        var positions = Array(0..<rows.count)
        var outcome: [Outcome] = []
        var updates: [StoreSaveRequest.Update] = []
        if upserts {
            let resolved = try resolve(txn)
            inserting = StoreBatchRows(entity: rows.entity, values: resolved.insertValues)
            positions = resolved.insertPositions
            updates = resolved.updates
            outcome = resolved.outcome
        }
        if inserting.count > 0 {
            inserting.firstKey = try txn.reserveKeys(for: rows.entity, count: inserting.count)
            do {
                try txn.insert(inserting)
            } catch let error as StoreError where error.code == .constraintConflict {
                throw Self.conflict(error, inserting, positions)
            }
        }
        let versions = updates.isEmpty ? [:] : try txn.save(StoreSaveRequest(updates: updates))
        changes.updated = updates.map { update in
            (
                update.objectID,
                RowSnapshot(
                    values: update.values,
                    version: versions[update.objectID] ?? (update.expectedVersion ?? 0) + 1)
            )
        }
        changes.writtenCount = inserting.count + updates.count
        guard wantsIDs else { return changes }
        let store = txn.storeIdentifier
        changes.insertedIDs = (0..<inserting.count).map { inserting.objectID(ofRow: $0, storeIdentifier: store) }
        if outcome.isEmpty {
            changes.writtenIDs = changes.insertedIDs
        } else {
            // One ID per row written, in the order of the objects that wrote them.
            var listed = Set<ManagedObjectID>()
            for entry in outcome {
                let id: ManagedObjectID
                switch entry {
                case .inserted(let row): id = changes.insertedIDs[row]
                case .updated(let owner): id = owner
                case .merged: continue
                }
                if listed.insert(id).inserted { changes.writtenIDs.append(id) }
            }
        }
        return changes
    }

    // MARK: - Upserts

    /// What became of one object of the request.
    private enum Outcome {
        /// Inserted as the `n`th row inserted.
        case inserted(Int)
        /// Written into the stored row with this ID.
        case updated(ManagedObjectID)
        /// Merged into an earlier object of the request, or dropped for the stored row (`.rollback`).
        case merged
    }

    /// Merges repeated constrained values: later rows of the request into the earlier one, then each remaining row
    /// into the stored row that holds its values, if any.
    private func resolve(_ txn: any StoreBatchTransaction) throws -> (
        insertValues: [StoreValue], insertPositions: [Int], updates: [StoreSaveRequest.Update], outcome: [Outcome]
    ) {
        let entity = rows.entity
        let width = rows.width
        let constraints = entity.applicableUniquenessConstraints
        var values = rows.values
        var given = given
        var survivors: [Int] = []
        var claims = [[[StoreValue]: Int]](repeating: [:], count: constraints.count)
        var outcome = [Outcome](repeating: .merged, count: rows.count)
        func combination(_ row: Int, _ attributes: [AttributeDescription]) -> [StoreValue]? {
            let combination = attributes.map { values[row * width + $0.storedIndex!] }
            return combination.contains(where: \.isNull) ? nil : combination
        }
        for row in 0..<rows.count {
            var earlier: Int?
            for (number, constraint) in constraints.enumerated() {
                if let combination = combination(row, constraint.attributes), let found = claims[number][combination] {
                    earlier = found
                    break
                }
            }
            if let earlier {
                mergeRow(row, into: earlier, &values, &given)
                continue
            }
            for (number, constraint) in constraints.enumerated() {
                if let combination = combination(row, constraint.attributes) { claims[number][combination] = row }
            }
            survivors.append(row)
        }
        var insertValues: [StoreValue] = []
        insertValues.reserveCapacity(survivors.count * width)
        var insertPositions: [Int] = []
        var owned: [(row: Int, owner: ManagedObjectID)] = []
        for row in survivors {
            var owner: ManagedObjectID?
            for constraint in constraints {
                guard let combination = combination(row, constraint.attributes) else { continue }
                owner = try txn.owner(
                    ofUniqueValues: combination, declaring: constraint.declaring, attributes: constraint.attributes)
                if owner != nil { break }
            }
            if let owner {
                owned.append((row, owner))
            } else {
                outcome[row] = .inserted(insertPositions.count)
                insertPositions.append(row)
                insertValues.append(contentsOf: values[row * width..<(row + 1) * width])
            }
        }
        var updates: [StoreSaveRequest.Update] = []
        let stored = try txn.snapshots(for: owned.map(\.owner))
        for ((row, owner), snapshot) in zip(owned, stored) {
            guard let snapshot else { continue }
            let committed = snapshot.values
            let merged = mergeIntoStored(row, values, given, owner.entity, committed)
            guard merged != committed || mergePolicy != .rollback else { continue }
            outcome[row] = .updated(owner)
            updates.append(
                .init(
                    objectID: owner, values: merged, expectedVersion: snapshot.version,
                    committedValues: committed))
        }
        return (insertValues, insertPositions, updates, outcome)
    }

    /// Merges a later row of the request into an earlier one, as the policy merges a new duplicate into the
    /// object that keeps the values.
    private func mergeRow(_ row: Int, into earlier: Int, _ values: inout [StoreValue], _ given: inout [Bool]) {
        let width = rows.width
        for slot in 0..<width where given[row * width + slot] {
            let value = values[row * width + slot]
            let target = earlier * width + slot
            switch mergePolicy {
            case .mergeByPropertyObjectTrump, .overwrite, .error:
                values[target] = value
                given[target] = true
            case .mergeByPropertyStoreTrump:
                if values[target].isNull {
                    values[target] = value
                    given[target] = true
                }
            case .rollback:
                break
            }
        }
    }

    /// The stored row of `entity` after merging a row of the request into it, as the policy says; to-one
    /// references are the stored row's (a batch insert wires none).
    private func mergeIntoStored(
        _ row: Int, _ values: [StoreValue], _ given: [Bool], _ entity: EntityDescription, _ stored: [StoreValue]
    ) -> [StoreValue] {
        var merged = stored
        let width = rows.width
        for (position, property) in entity.storedProperties.enumerated() {
            guard case .attribute(let attribute) = property,
                let slot = rows.entity.attributesByName[attribute.name]?.storedIndex,
                attribute.derivationExpression == nil
            else { continue }
            let value = values[row * width + slot]
            switch mergePolicy {
            case .overwrite:
                merged[position] = value
            case .mergeByPropertyObjectTrump, .error:
                if given[row * width + slot] { merged[position] = value }
            case .mergeByPropertyStoreTrump:
                if given[row * width + slot], merged[position].isNull { merged[position] = value }
            case .rollback:
                break
            }
        }
        return merged
    }

    // MARK: - Errors

    /// A store's uniqueness conflict as the request's error, naming the objects by their positions.
    private static func conflict(_ error: StoreError, _ rows: StoreBatchRows, _ positions: [Int]) -> ObjectStackError {
        guard let conflict = error.constraintConflicts.first else {
            return ObjectStackError(code: .constraintConflict, message: error.message, cause: error)
        }
        let indices = conflict.conflictingObjectIDs.compactMap { rows.row(ofKey: $0.key).map { positions[$0] } }
            .sorted()
        let pairs = zip(conflict.attributeNames, conflict.values).map { "\($0) = \($1)" }.joined(separator: ", ")
        let what = "\(conflict.entityName) uniqueness constraint (\(conflict.attributeNames.joined(separator: ", ")))"
        let message: String
        if let existing = conflict.existingObjectID, let index = indices.last {
            message = "objects[\(index)] has \(pairs), which \(existing) in the store already holds (\(what))"
        } else if indices.count >= 2 {
            message = "objects[\(indices[1])] repeats \(pairs) of objects[\(indices[0])] (\(what))"
        } else {
            message = conflict.description
        }
        var result = ObjectStackError(
            code: .constraintConflict,
            message: "batch insert into \(rows.entity.name) failed, nothing written: \(message)", cause: error)
        result.objectIndex = indices.last
        result.constraintConflicts = [
            ConstraintConflict(
                entityName: conflict.entityName, attributeNames: conflict.attributeNames, values: conflict.values,
                conflictingObjectIDs: [], existingObjectID: conflict.existingObjectID)
        ]
        return result
    }
}

extension StoreSaveRequest {
    /// A request of updates only.
    init(updates: [Update]) {
        self.init()
        self.updates = updates
    }
}
