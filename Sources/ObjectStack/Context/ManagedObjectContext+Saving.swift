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
        // What objectsDidChange announces during the save is kept for its didSave, and for no longer.
        recordsAnnouncedUpdates = true
        defer {
            recordsAnnouncedUpdates = false
            announcedUpdates = nil
        }
        processPendingChanges()
        guard hasChanges else { return }
        NotificationCenter.default.post(name: Self.willSaveNotification, object: self)
        callWillSave()
        processPendingChanges()
        // New objects in the order of their keys (temporary keys grow with each insert, so this is the order they
        // were made in, and mostly the order of their memory): every later pass over them walks this array
        // rather than a set's hash order, and their permanent keys are handed out in it.
        let inserted = insertedInKeyOrder()
        // Updated objects likewise in key order, the order the store writes their rows in.
        var (updated, updatedSet) = updatesInKeyOrder()
        let deleted = Array(deletedSet)
        computeDerivedAttributes(of: [inserted, updated].joined())
        if model.hasDerivedAttributes {
            // A derivation may have given a changed object its first persistent change.
            (updated, updatedSet) = updatesInKeyOrder()
        }
        // Each array in turn, rather than one array of them all: that was another retain per object.
        var failures: [ValidationFailure] = []
        for objects in [inserted, deleted, updated] { validate(objects, into: &failures) }
        try throwIfInvalid(failures)
        if let parent = parentStorage {
            try saveIntoParent(parent)
            return
        }
        let newlyKeyed = try assignPermanentIDs(to: inserted, inTemporaryKeyOrder: true)
        // The new keys follow the array's order unless some objects had permanent IDs already
        // (`obtainPermanentIDs(for:)` before the save) or the objects span entity hierarchies.
        var keyedForWrite = newlyKeyed.count == inserted.count ? newlyKeyed : nil
        var attempts = 0
        while true {
            do {
                if attempts > 0 {
                    // A retry follows a conflict's resolution, which may have changed what is inserted and updated.
                    keyedForWrite = nil
                    (updated, updatedSet) = updatesInKeyOrder()
                }
                let written = SaveWrites(
                    inserted: keyedForWrite ?? Self.inKeyOrder(insertedSet), updated: updated, updatedSet: updatedSet)
                let request = saveRequest(written)
                let rows = try coordinator.execute(
                    request, author: HistoryAuthor(author: transactionAuthor, contextName: name),
                    committedValues: { registered[$0]?.snapshot?.values })
                for (object, row) in zip(written.inserted, rows) { object.snapshot = row }
                for (object, row) in zip(written.updated, rows[written.inserted.count...]) { object.snapshot = row }
                finishSave(written)
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

    /// Calls `willSave()` on every object the save writes: inserted, deleted, and changed. Each set is walked
    /// as it was when the walk began (an object a `willSave()` changes first is not called), without building
    /// an array of them all.
    private func callWillSave() {
        for object in insertedInKeyOrder() { object.willSave() }
        for object in deletedSet { object.willSave() }
        for object in changedSet where object.hasPersistentChanges && !object.deletedFlag { object.willSave() }
    }

    /// The inserted objects in the order of their IDs' keys.
    private func insertedInKeyOrder() -> [ManagedObject] {
        insertionOrder.isExact ? insertionOrder.objects : Self.inKeyOrder(insertedSet)
    }

    /// Computes the derived attributes of the objects a save writes (not the deleted ones).
    private func computeDerivedAttributes(of objects: some Sequence<ManagedObject>) {
        guard model.hasDerivedAttributes else { return }
        let evaluator = PredicateEvaluator(resolver: ContextResolver(context: self))
        let now = Date()
        for object in objects where !object.deletedFlag {
            for attribute in object.entity.derivedAttributes {
                guard let derivation = attribute.derivation,
                    let value = try? derivation.value(using: evaluator, on: object, now: now),
                    let coerced = PropertyExpression.storedValue(value, as: attribute.type)
                else { continue }
                if object.attributeValue(attribute) != coerced { object.changes[attribute.index] = coerced }
            }
        }
    }

    // MARK: - Validation

    private func validate(_ objects: [ManagedObject], into failures: inout [ValidationFailure]) {
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
                if object.attributeIsNull(attribute) {
                    fail(
                        attribute.name, .missingValue,
                        "\(entity.name).\(attribute.name) is required but has no value"
                            + Self.missingTransformerNote(attribute))
                }
            }
            if !entity.compositeAttributesByName.isEmpty {
                for failure in object.compositeFailures() { fail(failure.key, .missingValue, failure.message) }
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
    }

    /// Throws the validation error of `failures`, all of them together, unless there are none.
    private func throwIfInvalid(_ failures: [ValidationFailure]) throws {
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
        try assignPermanentIDs(to: objects.filter { $0.managedObjectContext === self }, inTemporaryKeyOrder: false)
    }

    /// Gives the objects of this context among `objects` that still have temporary IDs permanent ones; returns
    /// them in the order of their new keys within each entity hierarchy, the order a save writes them in.
    /// `inTemporaryKeyOrder` says `objects` are sorted by key already.
    @discardableResult
    private func assignPermanentIDs(to objects: [ManagedObject], inTemporaryKeyOrder: Bool) throws
        -> [ManagedObject]
    {
        // Temporary keys grow with every insert, so sorting by them hands out primary keys in insertion order.
        // Keys come from the root entity's sequence (sub-entities share it, as rows share the root's table),
        // so one hierarchy is one block and insertion order holds across its sub-entities too.
        var keyed: [(key: Int64, object: ManagedObject)] = []
        keyed.reserveCapacity(objects.count)
        var firstRoot: EntityDescription?
        var oneRoot = true
        for object in objects where object.objectID.isTemporaryID {
            keyed.append((object.objectID.key, object))
            let root = object.entity.rootEntity
            if let firstRoot { oneRoot = oneRoot && firstRoot === root } else { firstRoot = root }
        }
        guard let firstRoot else { return [] }
        if !inTemporaryKeyOrder { keyed.sort { $0.key < $1.key } }
        // Most saves insert into one hierarchy: then the sorted objects are its one block, with no table of
        // blocks by root (a dictionary append per object).
        var groups: [(root: EntityDescription, objects: [ManagedObject])] = []
        if oneRoot {
            groups = [(firstRoot, keyed.map(\.object))]
        } else {
            var positions: [ObjectIdentifier: Int] = [:]
            for (_, object) in keyed {
                let root = object.entity.rootEntity
                if let position = positions[ObjectIdentifier(root)] {
                    groups[position].objects.append(object)
                } else {
                    positions[ObjectIdentifier(root)] = groups.count
                    groups.append((root, [object]))
                }
            }
        }
        keyed = []
        var replacements: [(object: ManagedObject, id: ManagedObjectID)] = []
        replacements.reserveCapacity(objects.count)
        do {
            for (root, group) in groups {
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
        // The row cache has no row of a new ID yet: the save that writes the rows counts this context's hold.
        registered.rekey(replacements)
        if !mapping.isEmpty {
            followNewIDs(mapping)
            forwardPermanentIDs(mapping)
        }
        return oneRoot ? groups[0].objects : groups.flatMap(\.objects)
    }

    /// Re-keys objects and every reference to them held by changed objects of the context.
    func replaceObjectIDs(_ mapping: [ManagedObjectID: ManagedObjectID]) {
        registered.rekey(mapping.compactMap { old, new in registered[old].map { ($0, new) } })
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

    // MARK: - Writing

    /// The row values of an object as it is now, by `storedIndex`.
    func rowValues(of object: ManagedObject) -> [StoreValue] {
        var changedMask: UInt64?
        return rowValues(of: object, changedMask: &changedMask)
    }

    /// The row values of an object as it is now, by `storedIndex`; `changedMask` gets the stored indices the
    /// changes wrote over its committed row (as `StoreSaveRequest.Update.changedMask`), nil when the row was not
    /// built over the committed one.
    private func rowValues(of object: ManagedObject, changedMask: inout UInt64?) -> [StoreValue] {
        changedMask = nil
        let entity = object.entity
        let storedCount = entity.storedProperties.count
        if let snapshot = object.snapshot {
            // The committed row with the changes over it: one copy, and a pass over the changes only.
            if !object.isFault, snapshot.count == storedCount {
                if entity.properties.count == storedCount,
                    let row = object.changes.rowOverCommitted(count: storedCount, changedBits: &changedMask)
                {
                    // Changes started over this committed row are the updated row already.
                    return row
                }
                var row = snapshot.values
                var mask: UInt64 = 0
                object.changes.forEach { index, value in
                    guard let stored = entity.storedIndex(ofProperty: index) else { return }
                    row[stored] = value
                    mask |= 1 << UInt64(stored & 63)
                }
                if storedCount <= 64 { changedMask = mask }
                return row
            }
        } else if entity.properties.count == storedCount, let row = object.changes.row(count: storedCount) {
            // A new object of an entity whose every property is stored: its changes are its row, shared.
            return row
        }
        return entity.storedProperties.map { property in
            switch property {
            case .attribute(let attribute): return object.attributeValue(attribute)
            case .toOne(let relationship): return object.toOneID(relationship).map(StoreValue.objectID) ?? .null
            }
        }
    }

    /// The objects a save writes rows for, in the order of their keys: the inserted ones, then the updated ones
    /// (also as the set the save's notification reports).
    struct SaveWrites {
        var inserted: [ManagedObject]
        var updated: [ManagedObject]
        var updatedSet: Set<ManagedObject>
    }

    /// The store's request for the context's changes: rows for `written`'s objects in its order, deletes and
    /// join-table links.
    ///
    /// Rows go to the store in primary-key order: a set's order is a hash's, and inserting 100,000 rows at
    /// random keys split the table's pages all over instead of appending to the last one, which doubled the
    /// SQLite store's time for the writes.
    private func saveRequest(_ written: SaveWrites) -> StoreSaveRequest {
        var request = StoreSaveRequest()
        request.inserts.reserveCapacity(written.inserted.count)
        for object in written.inserted {
            request.inserts.append((object.objectID, rowValues(of: object)))
        }
        request.updates.reserveCapacity(written.updated.count)
        for object in written.updated {
            object.fireFault()
            var changedMask: UInt64?
            let values = rowValues(of: object, changedMask: &changedMask)
            request.updates.append(
                .init(
                    objectID: object.objectID, values: values, expectedVersion: object.snapshot?.version,
                    committedValues: object.snapshot?.values, changedMask: changedMask))
        }
        for object in Self.inKeyOrder(deletedSet) {
            object.fireFault()
            request.deletes.append(
                .init(
                    objectID: object.objectID, expectedVersion: object.isInaccessible ? nil : object.snapshot?.version))
        }
        // Only written objects can have changed links: a changed to-many is a persistent change.
        for object in [written.inserted, written.updated].joined() where !object.toMany.isEmpty {
            for (index, state) in object.toMany where state.hasChanges {
                guard case .relationship(let relationship) = object.entity.properties[index] else { continue }
                if relationship.isOrdered, !state.added.isEmpty {
                    request.orderedAdditions.append(
                        .init(relationship: relationship, source: object.objectID, members: state.added))
                }
                guard relationship.storage == .joinTable, relationship.joinTableOwner === relationship else { continue }
                let key = relationship.storageKey
                for id in state.added {
                    request.insertedLinks.append(.init(relationship: key, source: object.objectID, destination: id))
                }
                for id in state.removed {
                    request.deletedLinks.append(.init(relationship: key, source: object.objectID, destination: id))
                }
            }
        }
        return request
    }

    /// The changed objects a save writes as updates: with persistent changes, neither inserted nor deleted.
    var updatesToSave: Set<ManagedObject> {
        changedSet.filter(Self.isUpdateToSave)
    }

    /// Whether a changed object is one the next save updates: changed persistently, neither deleted nor new.
    private static func isUpdateToSave(_ object: ManagedObject) -> Bool {
        object.hasPersistentChanges && !object.deletedFlag && !object.insertedFlag
    }

    /// The objects a save updates (`updatesToSave`) in the order of their keys, and as a set: `changedSet`
    /// itself when every changed object is one, so a large update builds no second set.
    private func updatesInKeyOrder() -> (objects: [ManagedObject], set: Set<ManagedObject>) {
        var keyed: [(Int64, ManagedObject)] = []
        keyed.reserveCapacity(changedSet.count)
        for object in changedSet where Self.isUpdateToSave(object) { keyed.append((object.objectID.key, object)) }
        let objects = Self.sortedByKey(&keyed)
        return (objects, objects.count == changedSet.count ? changedSet : Set(objects))
    }

    /// Objects in the order of their IDs' keys, the order the stores keep rows in.
    private static func inKeyOrder<Objects: Sequence<ManagedObject>>(_ objects: Objects) -> [ManagedObject] {
        // Sorting (key, object) pairs compares keys held in the array: comparing through each object's ID was
        // two dependent loads and a retain per comparison, a tenth of a 100,000-object insert.
        var keyed = objects.map { ($0.objectID.key, $0) }
        return sortedByKey(&keyed)
    }

    /// The objects of `keyed` in the order of their keys. Keys that fill most of their range (a table's keys
    /// handed out one after another) are placed by key in one pass; others are sorted, as are keys two
    /// objects share (objects of different entities).
    private static func sortedByKey(_ keyed: inout [(Int64, ManagedObject)]) -> [ManagedObject] {
        guard let first = keyed.first else { return [] }
        var low = first.0
        var high = first.0
        for (key, _) in keyed {
            low = min(low, key)
            high = max(high, key)
        }
        let (span, overflow) = high.subtractingReportingOverflow(low)
        if keyed.count > 64, !overflow, span < Int64(keyed.count) * 2 {
            // Sorting 100,000 pairs was a twentieth of saving 100,000 updates; placing them is a pass.
            var placed = [ManagedObject?](repeating: nil, count: Int(span) + 1)
            var shared = false
            for (key, object) in keyed {
                let slot = Int(key - low)
                if placed[slot] != nil {
                    shared = true
                    break
                }
                placed[slot] = object
            }
            if !shared { return placed.compactMap { $0 } }
        }
        keyed.sort { $0.0 < $1.0 }
        return keyed.map(\.1)
    }

    /// Makes the saved changes the objects' committed state and posts the save's notifications; each written
    /// object already holds the row the save wrote.
    func finishSave() {
        let updatedSet = updatesToSave
        finishSave(
            SaveWrites(
                inserted: insertedInKeyOrder(), updated: Self.inKeyOrder(updatedSet), updatedSet: updatedSet))
    }

    /// Finishes a save of `written`'s objects (and the deleted ones), walking them in their arrays' order.
    private func finishSave(_ written: SaveWrites) {
        let inserted = insertedSet
        let updated = written.updatedSet
        let deleted = deletedSet
        // One pass over each written object makes it saved and takes its ID for the notifications, in key order
        // (a pass per step in a set's hash order was a cache miss per object and step).
        var insertedIDs = Set<ManagedObjectID>(minimumCapacity: written.inserted.count)
        // The IDs `objectsDidChange` posted for these same updates, when it did: comparing the object sets hashes
        // pointers already held in the two tables, without touching the objects or their IDs.
        let announcedIDs = announcedUpdates.flatMap { $0.objects == updated ? $0.objectIDs : nil }
        var updatedIDs = announcedIDs ?? Set<ManagedObjectID>(minimumCapacity: written.updated.count)
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
        for object in written.inserted {
            finish(object)
            insertedIDs.insert(object.objectID)
        }
        let takesIDs = announcedIDs == nil
        for object in written.updated {
            finish(object)
            if takesIDs { updatedIDs.insert(object.objectID) }
        }
        for object in deleted {
            object.deletedFlag = false
            unregister(object)
        }
        insertedSet = []
        deletedSet = []
        changedSet = []
        pendingNotification = PendingChanges()
        pendingInsertsAreInsertedSet = true
        for object in written.inserted { object.didSave() }
        for object in written.updated { object.didSave() }
        // The ID sets are built once and shared by both notifications and the announcement.
        let ids = ContextDidSave(inserted: insertedIDs, updated: updatedIDs, deleted: Set(objectIDsOf: deleted))
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
