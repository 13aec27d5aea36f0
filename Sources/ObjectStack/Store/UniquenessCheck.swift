import Foundation

/// A save's uniqueness constraints checked in request order, by the rule every store keeps; the store is asked
/// only which of its rows hold the values a row claims.
///
/// The written rows are checked in request order, its inserts and then its updates: the first to claim a
/// combination of a constraint's values keeps it, a later claimant conflicts with it, and the conflicts are
/// reported in that order. A stored row the save deletes gives its values up, and so does one it updates to other
/// values (that update's claim is checked in its turn).
///
/// An update that keeps a constraint's values of the version it read (`keepsCommittedValues(at:)`) claims
/// nothing: the store holds its row with them already, and a save of 100,000 updated counters need not hash
/// every row's values. A claimant that meets such a keeper's row conflicts with it as if the keeper had claimed
/// in its turn: the pair in request order, listed at the later one's turn, and a keeper that comes first stays
/// the claimant that later takers conflict with.
///
/// For example, a store's save:
/// ```swift
/// try UniquenessCheck(request).run(url: url) { claim, visit in
///     for (key, entity) in storedRows(of: claim.declaring, holding: claim.values, except: claim.claimant) {
///         if try !visit(key, entity) { return }
///     }
/// }
/// ```
public struct UniquenessCheck {
    /// One constraint's values that a written row claims, as the store is asked for the rows holding them.
    public struct Claim {
        /// The entity that declares the constraint: the rows of its hierarchy (it and its descendants) are searched.
        public let declaring: EntityDescription
        /// The constraint's attributes.
        public let attributes: [AttributeDescription]
        /// The constraint's number among those the save meets, the same for each of its claims: what a store
        /// prepares per constraint (a statement) can be kept by it.
        public let number: Int
        /// The claimed values, in the attributes' order; none is nil (a nil value claims nothing).
        public let values: [StoreValue]
        /// The row claiming them: the store's rows other than this one are asked for.
        public let claimant: ManagedObjectID
    }

    /// A constraint as the check uses it, worked out once per entity and save.
    private struct Constraint {
        let declaring: EntityDescription
        let attributes: [AttributeDescription]
        let storedIndices: [Int]
        let number: Int
    }

    /// A row of the store the save writes or deletes: its hierarchy's root and its primary key, hashed by the key
    /// alone (the root's name was most of a lookup in a table of 100,000 rows).
    private struct SavedRow: Hashable {
        /// The root's name: entities of the save's IDs and of the store's schema may be equal, not identical.
        let root: String
        let key: Int64

        init(_ id: ManagedObjectID) {
            root = id.entity.rootEntity.name
            key = id.key
        }

        init(root: EntityDescription, key: Int64) {
            self.root = root.name
            self.key = key
        }

        func hash(into hasher: inout Hasher) { hasher.combine(key) }
    }

    private let request: StoreSaveRequest

    /// A check of `request`'s inserts and updates.
    public init(_ request: StoreSaveRequest) {
        self.request = request
    }

    /// Checks every constraint of every written row.
    ///
    /// - Parameters:
    ///   - url: The store's location, for the error.
    ///   - storedRows: Calls `visit` with the primary key and entity of each row of the store, other than the
    ///     claimant's, in the hierarchy of `claim.declaring` that holds `claim.values`, until `visit` returns false.
    ///     It is not called for a claim the save itself already refuses.
    /// - Throws: `StoreError(constraintConflicts:url:)` listing every conflict in request order, or what
    ///   `storedRows` throws.
    public func run(
        url: URL?, storedRows: (Claim, (Int64, EntityDescription) throws -> Bool) throws -> Void
    ) throws {
        var conflicts: [(order: Int64, conflict: ConstraintConflict)] = []
        var claimed: [[[StoreValue]: ManagedObjectID]] = []
        var numbers: [String: Int] = [:]
        var constraintsByEntity: [ObjectIdentifier: [Constraint]] = [:]
        func constraints(of entity: EntityDescription) -> [Constraint] {
            if let known = constraintsByEntity[ObjectIdentifier(entity)] { return known }
            let found = zip(entity.applicableUniquenessConstraints, entity.applicableUniquenessStoredIndices).map {
                constraint, storedIndices in
                let key = "\(constraint.declaring.name):" + constraint.attributes.map(\.name).joined(separator: ",")
                let number =
                    numbers[key]
                    ?? {
                        numbers[key] = claimed.count
                        claimed.append([:])
                        return claimed.count - 1
                    }()
                return Constraint(
                    declaring: constraint.declaring, attributes: constraint.attributes, storedIndices: storedIndices,
                    number: number)
            }
            constraintsByEntity[ObjectIdentifier(entity)] = found
            return found
        }
        let firstUpdate = request.inserts.count
        // The rows the save deletes (-1) and updates (their request position), made when a claim first meets a
        // stored row: a save whose claims meet none never builds it.
        var savedRows: [SavedRow: Int]?
        func savedRow(_ row: SavedRow) -> Int? {
            if savedRows == nil {
                var rows: [SavedRow: Int] = [:]
                rows.reserveCapacity(request.deletes.count + request.updates.count)
                for delete in request.deletes { rows[SavedRow(delete.objectID)] = -1 }
                for (index, update) in request.updates.enumerated() {
                    rows[SavedRow(update.objectID)] = firstUpdate + index
                }
                savedRows = rows
            }
            return savedRows?[row]
        }
        func conflict(
            _ constraint: Constraint, _ values: [StoreValue], _ pair: [ManagedObjectID],
            existing: ManagedObjectID? = nil
        ) -> ConstraintConflict {
            ConstraintConflict(
                entityName: constraint.declaring.name, attributeNames: constraint.attributes.map(\.name),
                values: values, conflictingObjectIDs: pair, existingObjectID: existing)
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
                    conflicts.append((order, conflict(constraint, combination, [other, id])))
                    continue
                }
                let root = constraint.declaring.rootEntity
                let claim = Claim(
                    declaring: constraint.declaring, attributes: constraint.attributes, number: constraint.number,
                    values: combination, claimant: id)
                try storedRows(claim) { ownerKey, ownerEntity in
                    guard let saved = savedRow(SavedRow(root: root, key: ownerKey)) else {
                        let existing = ManagedObjectID(
                            entity: ownerEntity, storeIdentifier: id.storeIdentifier, primaryKey: ownerKey)
                        conflicts.append((order, conflict(constraint, combination, [id], existing: existing)))
                        return false
                    }
                    // A deleted row gives its values up, and so does an updated one that changes them (its claim
                    // is checked in its turn); one that keeps them holds them.
                    guard saved >= firstUpdate else { return true }
                    let keeper = request.updates[saved - firstUpdate]
                    let keeperConstraints = constraints(of: keeper.objectID.entity)
                    guard
                        let keeperOrdinal = keeperConstraints.firstIndex(where: { $0.number == constraint.number }),
                        keeper.keepsCommittedValues(at: keeperConstraints[keeperOrdinal].storedIndices)
                    else { return true }
                    // Whichever comes first in the request claimed the values; the other conflicts in its turn.
                    if saved < position {
                        claimed[constraint.number][combination] = keeper.objectID
                        conflicts.append((order, conflict(constraint, combination, [keeper.objectID, id])))
                    } else {
                        conflicts.append(
                            (
                                Int64(saved) << 16 | Int64(keeperOrdinal),
                                conflict(constraint, combination, [id, keeper.objectID])
                            ))
                    }
                    return false
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
}
