import Foundation

extension ManagedObjectContext {
    // MARK: - Resolving conflicts at save

    /// Resolves rows that changed in the store since they were read, as the merge policy says, so the
    /// save can be tried again. Never called under `.error`.
    func resolveVersionConflicts(_ conflicts: [StoreVersionConflict]) {
        for conflict in conflicts {
            guard let object = registered[conflict.objectID] else { continue }
            guard let stored = conflict.storedSnapshot else {
                if object.deletedFlag {
                    // Deleted in the store too: the delete stands and the retried save reports it (in
                    // didSave's deleted objects), so observers and merging contexts still learn of it.
                    object.isInaccessible = true
                    continue
                }
                // Updated here, deleted in the store: there is no row left to update, so under every merging
                // policy the store's delete wins and objectsDidChange reports the object as deleted.
                detachPendingInserts()
                insertedSet.remove(object)
                changedSet.remove(object)
                deletedSet.remove(object)
                object.deletedFlag = false
                unregister(object)
                pendingNotification.deleted.insert(object)
                continue
            }
            let cached = object.snapshot?.values
            switch mergePolicy {
            case .error:
                return
            case .mergeByPropertyObjectTrump:
                adopt(stored, into: object)
            case .mergeByPropertyStoreTrump:
                for index in object.changes.keys {
                    guard let position = object.entity.storedIndex(ofProperty: index) else { continue }
                    if cached?[position] != stored[position] { object.changes[index] = nil }
                }
                adopt(stored, into: object)
            case .overwrite:
                let current = rowValues(of: object)
                adopt(stored, into: object)
                for (position, property) in object.entity.storedProperties.enumerated()
                where stored[position] != current[position] {
                    object.changes[property.index] = current[position]
                }
            case .rollback:
                object.changes = [:]
                object.toMany = [:]
                adopt(stored, into: object)
                changedSet.remove(object)
                if object.deletedFlag {
                    object.deletedFlag = false
                    deletedSet.remove(object)
                }
            }
            pendingNotification.refreshed.insert(object)
        }
    }

    /// Resolves uniqueness clashes as the merge policy says: each new duplicate is merged into the object that
    /// keeps the values (the one in the store, or the first new one) and leaves the context. The by-property
    /// and overwrite policies take the duplicate's values; store-trump only fills the survivor's nil values;
    /// rollback keeps the survivor as it is.
    /// - Throws: the original error when a clash involves an object that is not new (two saved rows).
    func resolveConstraintConflicts(_ conflicts: [ConstraintConflict], _ original: StoreError) throws {
        for conflict in conflicts {
            let survivorID = conflict.existingObjectID ?? conflict.conflictingObjectIDs[0]
            let survivor = object(with: survivorID)
            survivor.fireFault()
            for loserID in conflict.conflictingObjectIDs where loserID != survivorID {
                guard let loser = registered[loserID], loser.insertedFlag else { throw conflictError(from: original) }
                merge(loser, into: survivor)
            }
        }
    }

    private func merge(_ loser: ManagedObject, into survivor: ManagedObject) {
        let entity = loser.entity
        for attribute in entity.attributes where !attribute.isTransient && attribute.derivationExpression == nil {
            guard survivor.entity.attributesByName[attribute.name] === attribute else { continue }
            let value = loser.attributeValue(attribute)
            switch mergePolicy {
            case .mergeByPropertyObjectTrump, .overwrite, .error:
                if !value.isNull || mergePolicy == .overwrite { survivor.setAttribute(attribute, value) }
            case .mergeByPropertyStoreTrump:
                if survivor.attributeValue(attribute).isNull { survivor.setAttribute(attribute, value) }
            case .rollback:
                break
            }
        }
        for relationship in entity.relationships
        where survivor.entity.relationshipsByName[relationship.name] === relationship {
            if relationship.isToMany {
                for id in loser.toManyIDs(relationship) {
                    let member = object(with: id)
                    loser.remove(member, from: relationship)
                    survivor.add(member, to: relationship)
                }
            } else if let target = loser.toOneID(relationship) {
                loser.setToOne(relationship, to: nil, maintainInverse: true)
                if survivor.toOneID(relationship) == nil || mergePolicy == .mergeByPropertyObjectTrump
                    || mergePolicy == .overwrite
                {
                    survivor.setToOne(relationship, to: target, maintainInverse: true)
                }
            }
        }
        detachPendingInserts()
        insertedSet.remove(loser)
        loser.insertedFlag = false
        pendingNotification.inserted.remove(loser)
        // Observers that were told of the insert are told it is gone.
        if loser.insertAnnounced { pendingNotification.deleted.insert(loser) }
        unregister(loser)
    }
}
