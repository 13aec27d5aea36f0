import Foundation

extension ManagedObjectContext {
    // MARK: - Saving

    /// Saves every unsaved change to the store in one atomic write.
    ///
    /// Runs delete rules, calls `willSave()` on each changed object, computes derived attributes, validates
    /// every changed object (all failures are reported together), gives new objects permanent IDs, and
    /// writes. On success posts `didSaveNotification`; on failure nothing is written and the context keeps
    /// its changes.
    /// - Throws: `ObjectStackError`: `.validationFailed` (see `validationFailures`), `.mergeConflict` (see
    ///   `mergeConflicts`), `.constraintConflict` (see `constraintConflicts`), or `.storeFailed`.
    public func save() throws {
        assertOnQueue("save()")
        processPendingChanges()
        guard hasChanges else { return }
        NotificationCenter.default.post(name: Self.willSaveNotification, object: self)
        for object in objectsToSave() { object.willSave() }
        processPendingChanges()
        let objects = objectsToSave()
        computeDerivedAttributes(of: objects)
        try validate(objects)
        if let parent = parentStorage {
            try saveIntoParent(parent)
            return
        }
        try obtainPermanentIDs(for: Array(insertedSet))
        var attempts = 0
        while true {
            do {
                let (request, written) = saveRequest()
                let rows = try coordinator.execute(
                    request, author: HistoryAuthor(author: transactionAuthor, contextName: name),
                    committedValues: { registered[$0]?.snapshot?.values })
                for (object, row) in zip(written, rows) { object.snapshot = row }
                finishSave()
                advanceQueryGeneration()
                return
            } catch let error as StoreError {
                // Under a merging policy a conflict is resolved and the save tried again; concurrent writers
                // can make it recur, so the retries are bounded.
                guard mergePolicy != .error, attempts < 8,
                    error.code == .versionConflict || error.code == .constraintConflict
                else { throw conflictError(from: error) }
                attempts += 1
                if error.code == .versionConflict {
                    resolveVersionConflicts(error.versionConflicts)
                } else {
                    try resolveConstraintConflicts(error.constraintConflicts, error)
                }
            }
        }
    }

    /// Every object the next save writes: inserted, deleted, and changed.
    private func objectsToSave() -> [ManagedObject] {
        Array(insertedSet) + Array(deletedSet) + changedSet.filter { $0.hasPersistentChanges && !$0.deletedFlag }
    }

    /// Computes the derived attributes of the objects a save writes (not the deleted ones).
    private func computeDerivedAttributes(of objects: [ManagedObject]) {
        guard model.hasDerivedAttributes else { return }
        let evaluator = PredicateEvaluator(resolver: ContextResolver(context: self))
        for object in objects where !object.deletedFlag {
            for attribute in object.entity.derivedAttributes {
                guard let derivation = attribute.derivation,
                    let value = try? derivation.value(using: evaluator, on: object),
                    let coerced = attribute.type.coerce(value)
                else { continue }
                if object.attributeValue(attribute) != coerced { object.changes[attribute.index] = coerced }
            }
        }
    }

    // MARK: - Validation

    private func validate(_ objects: [ManagedObject]) throws {
        var failures: [ValidationFailure] = []
        for object in objects {
            let entity = object.entity
            func fail(_ key: String?, _ reason: ValidationFailure.Reason, _ message: String) {
                failures.append(
                    ValidationFailure(
                        objectID: object.objectID, entityName: entity.name, key: key,
                        reason: reason, message: message))
            }
            if object.deletedFlag {
                for relationship in entity.relationships where relationship.deleteRule == .deny {
                    let remaining =
                        (relationship.isToMany
                        ? object.toManyIDs(relationship) : object.toOneID(relationship).map { [$0] } ?? [])
                        .filter { registered[$0]?.deletedFlag != true }
                    if !remaining.isEmpty {
                        fail(
                            relationship.name, .deleteDenied(count: remaining.count),
                            "\(entity.name) \(object.objectID) cannot be deleted: \(relationship.name) has the deny rule and holds \(remaining.count) object(s)"
                        )
                    }
                }
                do { try object.validateForDelete() } catch {
                    fail(nil, .custom, "\(entity.name) \(object.objectID): \(error)")
                }
                continue
            }
            for attribute in entity.requiredAttributes {
                if object.attributeValue(attribute).isNull {
                    fail(
                        attribute.name, .missingValue,
                        "\(entity.name).\(attribute.name) is required but has no value"
                            + Self.missingTransformerNote(attribute))
                }
            }
            for attribute in entity.constrainedAttributes {
                if let problem = attribute.constraintViolation(of: object.attributeValue(attribute)) {
                    fail(attribute.name, problem.reason, "\(entity.name).\(attribute.name) \(problem.message)")
                }
            }
            for relationship in entity.relationships where !relationship.isTransient {
                if relationship.isToMany {
                    let count = object.toManyIDs(relationship).count
                    // As in Core Data, an optional to-many may be empty whatever its minimum count: the
                    // minimum applies once it holds something (or always, when the relationship is required).
                    let minimum =
                        relationship.isOptional && count == 0
                        ? 0 : max(relationship.minCount, relationship.isOptional ? 0 : 1)
                    if count < minimum {
                        fail(
                            relationship.name, .tooFewObjects(count: count, minimum: minimum),
                            "\(entity.name).\(relationship.name) holds \(count) object(s), fewer than its minimum of \(minimum)"
                        )
                    }
                    if relationship.maxCount > 0, count > relationship.maxCount {
                        fail(
                            relationship.name, .tooManyObjects(count: count, maximum: relationship.maxCount),
                            "\(entity.name).\(relationship.name) holds \(count) object(s), more than its maximum of \(relationship.maxCount)"
                        )
                    }
                } else if !relationship.isOptional, object.toOneID(relationship) == nil {
                    fail(relationship.name, .missingValue, "\(entity.name).\(relationship.name) is required but is nil")
                }
            }
            do {
                if object.insertedFlag { try object.validateForInsert() } else { try object.validateForUpdate() }
            } catch {
                fail(nil, .custom, "\(entity.name) \(object.objectID): \(error)")
            }
        }
        guard failures.isEmpty else {
            var error = ObjectStackError(
                code: .validationFailed,
                message: "\(failures.count) validation failure(s): " + failures.map(\.message).joined(separator: "; "))
            error.validationFailures = failures
            throw error
        }
    }

    /// Why a required transformable attribute can have no value: its transformer is not registered.
    private static func missingTransformerNote(_ attribute: AttributeDescription) -> String {
        guard attribute.type == .transformable, let name = attribute.valueTransformerName,
            ValueTransformerRegistry.transformer(named: name) == nil
        else { return "" }
        return " (its value transformer '\(name)' is not registered)"
    }

    // MARK: - Permanent IDs

    /// Gives objects permanent IDs now, before they are saved (saving does this for new objects anyway).
    ///
    /// References to the objects held by other objects of the context follow the new IDs.
    /// - Throws: `ObjectStackError` `.storeFailed` when the store cannot reserve IDs.
    public func obtainPermanentIDs(for objects: [ManagedObject]) throws {
        assertOnQueue("obtainPermanentIDs(for:)")
        // Temporary keys grow with every insert, so sorting by them hands out primary keys in insertion order.
        let temporary = objects.compactMap { object -> (Int64, ManagedObject)? in
            object.objectID.isTemporaryID && object.managedObjectContext === self ? (object.objectID.key, object) : nil
        }.sorted { $0.0 < $1.0 }.map(\.1)
        guard !temporary.isEmpty else { return }
        // Keys come from the root entity's sequence (sub-entities share it, as rows share the root's table),
        // so one hierarchy is one block and insertion order holds across its sub-entities too.
        var byRoot: [ObjectIdentifier: [ManagedObject]] = [:]
        var roots: [EntityDescription] = []
        for object in temporary {
            let root = object.entity.rootEntity
            if byRoot[ObjectIdentifier(root)] == nil { roots.append(root) }
            byRoot[ObjectIdentifier(root), default: []].append(object)
        }
        var replacements: [(object: ManagedObject, id: ManagedObjectID)] = []
        replacements.reserveCapacity(temporary.count)
        do {
            for root in roots {
                let group = byRoot[ObjectIdentifier(root)]!
                let ids = try coordinator.newObjectIDs(for: root, count: group.count)
                for (object, id) in zip(group, ids) {
                    replacements.append(
                        (
                            object,
                            object.entity === root
                                ? id
                                : ManagedObjectID(
                                    entity: object.entity, storeIdentifier: id.storeIdentifier, primaryKey: id.key)
                        ))
                }
            }
        } catch {
            throw ObjectStackError(code: .storeFailed, message: "could not obtain permanent IDs", cause: error)
        }
        // The old-to-new table is only built for what reads it: children (which may still name the old IDs)
        // and references between objects. A bulk insert of a relationship-free entity needs neither, and
        // hashing 100,000 temporary IDs into it was a fifth of obtaining their permanent ones. It is keyed by
        // the old IDs, so it is built before the objects take their new ones.
        let mapping =
            model.hasRelationships || children.withLock({ !$0.isEmpty })
            ? Dictionary(uniqueKeysWithValues: replacements.map { ($0.object.objectID, $0.id) }) : [:]
        rekey(replacements)
        guard !mapping.isEmpty else { return }
        followNewIDs(mapping)
        forwardPermanentIDs(mapping)
    }

    /// Re-keys objects and every reference to them held by changed objects of the context.
    func replaceObjectIDs(_ mapping: [ManagedObjectID: ManagedObjectID]) {
        rekey(mapping.compactMap { old, new in registered[old].map { ($0, new) } })
        followNewIDs(mapping)
    }

    /// Points what still names the old IDs of re-keyed objects at their new ones: changed objects' references,
    /// and the table a child resolves late references through.
    private func followNewIDs(_ mapping: [ManagedObjectID: ManagedObjectID]) {
        // Only children can still name the old IDs (in a later save or fault); without children the map
        // would just grow with every insert.
        if children.withLock({ !$0.isEmpty }) { permanentIDs.merge(mapping) { _, new in new } }
        // Only changed objects can refer to new objects: an unchanged object's values are all committed.
        func remap(_ object: ManagedObject) {
            // Only relationship values can hold IDs: entities without relationships need no pass.
            guard !object.entity.relationships.isEmpty else { return }
            for relationship in object.entity.relationships where !relationship.isToMany {
                if case .objectID(let id)? = object.changes[relationship.index], let new = mapping[id] {
                    object.changes[relationship.index] = .objectID(new)
                }
            }
            for index in object.toMany.keys {
                guard let state = object.toMany[index], state.hasChanges || state.committed != nil else { continue }
                object.toMany[index]?.replace(using: mapping)
            }
        }
        insertedSet.forEach(remap)
        changedSet.forEach(remap)
        deletedSet.forEach(remap)
    }

    /// Registers objects under new IDs in place of their old ones.
    private func rekey(_ replacements: [(object: ManagedObject, id: ManagedObjectID)]) {
        // The row cache has no row of a new ID yet: the save that writes the rows counts this context's hold.
        // Each object leaves the table before its new ID enters it, so the table never grows: reserving room
        // for both rehashed every registered object.
        for (object, id) in replacements {
            guard registered.removeValue(forKey: object.objectID) != nil else { continue }
            object.objectID = id
            registered[id] = object
        }
    }

    // MARK: - Writing

    /// The row values of an object as it is now, by `storedIndex`.
    func rowValues(of object: ManagedObject) -> [StoreValue] {
        object.entity.storedProperties.map { property in
            switch property {
            case .attribute(let attribute): return object.attributeValue(attribute)
            case .toOne(let relationship): return object.toOneID(relationship).map(StoreValue.objectID) ?? .null
            }
        }
    }

    /// The store's request for the context's changes, with the objects whose rows it writes: the inserted
    /// ones, then the updated ones, in the request's order.
    private func saveRequest() -> (request: StoreSaveRequest, written: [ManagedObject]) {
        var request = StoreSaveRequest()
        // Rows go to the store in primary-key order: a set's order is a hash's, and inserting 100,000 rows at
        // random keys split the table's pages all over instead of appending to the last one, which doubled the
        // SQLite store's time for the writes.
        var written = Self.inKeyOrder(insertedSet)
        request.inserts.reserveCapacity(written.count)
        for object in written {
            request.inserts.append((object.objectID, rowValues(of: object)))
        }
        let updated = Self.inKeyOrder(updatesToSave)
        written += updated
        for object in updated {
            object.fireFault()
            request.updates.append(
                .init(
                    objectID: object.objectID, values: rowValues(of: object),
                    expectedVersion: object.snapshot?.version, committedValues: object.snapshot?.values))
        }
        for object in Self.inKeyOrder(deletedSet) {
            object.fireFault()
            request.deletes.append(
                .init(
                    objectID: object.objectID, expectedVersion: object.isInaccessible ? nil : object.snapshot?.version))
        }
        for object in insertedSet.union(changedSet) where !object.deletedFlag {
            for (index, state) in object.toMany where state.hasChanges {
                guard case .relationship(let relationship) = object.entity.properties[index],
                    relationship.storage == .joinTable, relationship.joinTableOwner === relationship
                else { continue }
                let key = relationship.storageKey
                for id in state.added {
                    request.insertedLinks.append(.init(relationship: key, source: object.objectID, destination: id))
                }
                for id in state.removed {
                    request.deletedLinks.append(.init(relationship: key, source: object.objectID, destination: id))
                }
            }
        }
        return (request, written)
    }

    /// The changed objects a save writes as updates: with persistent changes, neither inserted nor deleted.
    var updatesToSave: Set<ManagedObject> {
        changedSet.filter { $0.hasPersistentChanges && !$0.deletedFlag && !$0.insertedFlag }
    }

    /// Objects in the order of their IDs' keys, the order the stores keep rows in.
    private static func inKeyOrder<Objects: Sequence<ManagedObject>>(_ objects: Objects) -> [ManagedObject] {
        // Sorting (key, object) pairs compares keys held in the array: comparing through each object's ID was
        // two dependent loads and a retain per comparison, a tenth of a 100,000-object insert.
        var keyed = objects.map { ($0.objectID.key, $0) }
        keyed.sort { $0.0 < $1.0 }
        return keyed.map(\.1)
    }

    /// Makes the saved changes the objects' committed state and posts the save's notifications; each written
    /// object already holds the row the save wrote.
    func finishSave() {
        let inserted = insertedSet
        let updated = updatesToSave
        let deleted = deletedSet
        // Inserted and updated objects are disjoint (`updated` leaves inserted ones out): each is finished in
        // its own pass rather than copying both into one set.
        func finish(_ object: ManagedObject) {
            for index in object.toMany.keys {
                guard case .relationship(let relationship) = object.entity.properties[index] else { continue }
                let current = object.toManyIDs(relationship)
                object.toMany[index] = ToManyState(committed: current)
            }
            object.changes = [:]
            object.insertedFlag = false
            object.isFault = false
        }
        inserted.forEach(finish)
        updated.forEach(finish)
        for object in deleted {
            object.deletedFlag = false
            unregister(object)
        }
        insertedSet = []
        deletedSet = []
        changedSet = []
        pendingNotification = PendingChanges()
        for object in inserted { object.didSave() }
        for object in updated { object.didSave() }
        // The ID sets are built once and shared by both notifications and the announcement.
        let ids = ContextDidSave(
            inserted: Set(inserted.map(\.objectID)), updated: Set(updated.map(\.objectID)),
            deleted: Set(deleted.map(\.objectID)))
        typealias Key = NotificationKey
        let idInfo: [AnyHashable: Any] = [
            Key.insertedObjectIDs.rawValue: ids.insertedObjectIDs,
            Key.updatedObjectIDs.rawValue: ids.updatedObjectIDs,
            Key.deletedObjectIDs.rawValue: ids.deletedObjectIDs,
        ]
        var objectInfo = idInfo
        objectInfo[Key.insertedObjects.rawValue] = inserted
        objectInfo[Key.updatedObjects.rawValue] = updated
        objectInfo[Key.deletedObjects.rawValue] = deleted
        NotificationCenter.default.post(name: Self.didSaveNotification, object: self, userInfo: objectInfo)
        NotificationCenter.default.post(name: Self.didSaveObjectIDsNotification, object: self, userInfo: idInfo)
        announce(ids, except: nil)
    }

    /// Turns a store's conflict into the context's error, with the values of each side by property name.
    func conflictError(from error: StoreError) -> ObjectStackError {
        if error.code == .constraintConflict {
            var result = ObjectStackError(code: .constraintConflict, message: error.message, cause: error)
            result.constraintConflicts = error.constraintConflicts
            return result
        }
        guard error.code == .versionConflict else {
            return ObjectStackError(code: .storeFailed, message: "save failed: \(error.message)", cause: error)
        }
        let conflicts = error.versionConflicts.map { conflict -> MergeConflict in
            let object = registered[conflict.objectID]
            let names = conflict.objectID.entity.storedProperties.map(\.name)
            func named(_ values: [StoreValue]?) -> [String: StoreValue]? {
                values.map { Dictionary(uniqueKeysWithValues: zip(names, $0)) }
            }
            return MergeConflict(
                objectID: conflict.objectID, cachedVersion: conflict.expectedVersion,
                storeVersion: conflict.storedSnapshot?.version,
                cachedValues: named(object?.snapshot?.values) ?? [:],
                storeValues: named(conflict.storedSnapshot?.values),
                objectValues: named(object.map(rowValues(of:))) ?? [:])
        }
        var result = ObjectStackError(
            code: .mergeConflict,
            message: "\(conflicts.count) object(s) changed in the store since they were read: "
                + conflicts.map(\.description).joined(separator: "; "), cause: error)
        result.mergeConflicts = conflicts
        return result
    }
}
