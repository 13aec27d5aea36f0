import Foundation

extension ManagedObjectContext {
    // MARK: - Processing changes

    /// Runs the delete rules of objects deleted since the last call, keeps inverses consistent, and posts
    /// `objectsDidChangeNotification` with everything inserted, updated, deleted or refreshed since then.
    ///
    /// With an `undoManager`, the changes are recorded with it as one undo operation, and the manager's event
    /// group closes (see `undoManager`).
    public func processPendingChanges() {
        processPendingChanges(endingUndoEvent: true)
    }

    /// Processes pending changes; `endingUndoEvent` false when the undo manager itself asks (a checkpoint, an
    /// undo being applied), whose group must stay open.
    func processPendingChanges(endingUndoEvent: Bool) {
        assertOnQueue("processPendingChanges()")
        propagateDeletions()
        if let undoRecorder { registerUndoStep(undoRecorder) }
        if pendingInsertsAreInsertedSet {
            pendingNotification.inserted = insertedSet
            // From here the next notification's inserts start empty, which the inserted set is only if empty.
            pendingInsertsAreInsertedSet = insertedSet.isEmpty
        }
        if !pendingNotification.isEmpty {
            let changes = pendingNotification
            pendingNotification = PendingChanges()
            for object in changes.inserted { object.insertAnnounced = true }
            let userInfo = changes.userInfo
            if recordsAnnouncedUpdates, !changes.updated.isEmpty {
                announcedUpdates = AnnouncedUpdates(
                    objects: changes.updated,
                    objectIDs: userInfo[NotificationKey.updatedObjectIDs.rawValue] as? Set<ManagedObjectID>)
            }
            NotificationCenter.default.post(name: Self.objectsDidChangeNotification, object: self, userInfo: userInfo)
        }
        // Both empty again (everything inserted was saved or discarded, and announced): the next inserts may
        // share the set again.
        if !pendingInsertsAreInsertedSet, insertedSet.isEmpty, pendingNotification.inserted.isEmpty {
            pendingInsertsAreInsertedSet = true
        }
        if endingUndoEvent, let undoRecorder { undoRecorder.manager.endEvent() }
    }

    /// Gives `pendingNotification.inserted` its own objects (those of `insertedSet`) before a change other than
    /// `insert(_:)` makes the two differ.
    func detachPendingInserts() {
        guard pendingInsertsAreInsertedSet else { return }
        pendingNotification.inserted = insertedSet
        pendingInsertsAreInsertedSet = false
    }

    /// Applies delete rules until no deletion is left to propagate.
    private func propagateDeletions() {
        while !deletionsToPropagate.isEmpty {
            let batch = deletionsToPropagate
            deletionsToPropagate = []
            for object in batch { applyDeleteRules(of: object) }
        }
        // Objects inserted and deleted before any save vanish: they never reached the store. (`delete(_:)`
        // already decided whether the notification reports them: only if their insert was announced.)
        for object in deletedSet where object.insertedFlag {
            detachPendingInserts()
            deletedSet.remove(object)
            insertedSet.remove(object)
            object.insertedFlag = false
            object.deletedFlag = false
            unregister(object)
        }
    }

    private func applyDeleteRules(of object: ManagedObject) {
        for relationship in object.entity.relationships {
            let destinations: [ManagedObjectID]
            if relationship.isToMany {
                destinations = object.toManyIDs(relationship)
            } else {
                destinations = object.toOneID(relationship).map { [$0] } ?? []
            }
            guard !destinations.isEmpty else { continue }
            switch relationship.deleteRule {
            case .cascade:
                for id in destinations { delete(self.object(with: id)) }
                nullifyInverse(of: relationship, pointingAt: object, from: destinations)
            case .nullify:
                nullifyInverse(of: relationship, pointingAt: object, from: destinations)
            case .deny, .noAction:
                // Deny is checked at save (validation); no action leaves the destinations as they are.
                break
            }
        }
    }

    /// Removes a deleted object from the inverse side of each destination.
    private func nullifyInverse(
        of relationship: RelationshipDescription, pointingAt object: ManagedObject, from destinations: [ManagedObjectID]
    ) {
        guard let inverse = relationship.inverse else { return }
        for id in destinations {
            let destination = self.object(with: id)
            if destination.isInaccessible { continue }
            if inverse.isToMany {
                destination.changeToMany(inverse) { $0.remove(object.objectID) }
            } else if destination.toOneID(inverse) == object.objectID {
                destination.setToOne(inverse, to: nil, maintainInverse: false)
            }
        }
    }

    // MARK: - Discarding changes

    /// Discards every unsaved change: inserted objects leave the context, deleted ones come back, updated
    /// ones return to their committed values. Empties the undo manager's stacks, as Core Data does.
    public func rollback() {
        assertOnQueue("rollback()")
        discardUndoHistory()
        // Inserts already announced are announced as deleted (as undoing an insert does in Core Data).
        let announcedInserts = insertedSet.filter(\.insertAnnounced)
        for object in insertedSet {
            object.insertedFlag = false
            unregister(object)
        }
        for object in deletedSet { object.deletedFlag = false }
        var refreshed = Set(deletedSet)
        for object in changedSet where object.hasPersistentChanges || !object.transientValues.isEmpty {
            refreshed.insert(object)
        }
        for object in refreshed {
            object.changes = [:]
            object.toMany = [:]
            object.transientValues = [:]
        }
        insertedSet = []
        deletedSet = []
        changedSet = []
        deletionsToPropagate = []
        pendingNotification = PendingChanges()
        pendingInsertsAreInsertedSet = true
        pendingNotification.refreshed = refreshed
        pendingNotification.deleted = announcedInserts
        processPendingChanges()
    }

    /// Forgets every registered object and change; the objects may no longer be used. Empties the undo
    /// manager's stacks.
    public func reset() {
        assertOnQueue("reset()")
        advanceQueryGeneration()
        discardUndoHistory()
        for object in registered.values {
            object.managedObjectContext = nil
            object.insertedFlag = false
            object.deletedFlag = false
        }
        let ids = Array(registered.keys)
        coordinatorStorage?.rowCache.withLock { cache in ids.forEach { cache.release($0) } }
        registered = ObjectRegistry()
        permanentIDs = [:]
        insertedSet = []
        deletedSet = []
        changedSet = []
        deletionsToPropagate = []
        pendingNotification = PendingChanges()
        pendingInsertsAreInsertedSet = true
        pendingNotification.invalidatedAll = true
        processPendingChanges()
    }

    /// Refreshes an object from the row cache.
    ///
    /// With `mergeChanges: false` the object becomes a fault and its unsaved changes are lost; with `true`
    /// it reads the newest committed values and keeps its unsaved changes on top of them.
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) {
        assertOnQueue("refresh(_:mergeChanges:)")
        guard object.managedObjectContext === self, !object.insertedFlag else { return }
        if mergeChanges {
            if let fresh = try? parentSnapshots(for: [object.objectID], fresh: true).first, let fresh {
                adopt(fresh, into: object)
            }
        } else {
            object.changes = [:]
            object.toMany = [:]
            object.transientValues = [:]
            object.snapshot = nil
            object.fetchedRow = nil
            object.isFault = true
            changedSet.remove(object)
        }
        pendingNotification.refreshed.insert(object)
        scheduleProcessing()
    }

    /// Refreshes every registered object as `refresh(_:mergeChanges: true)` does, as Core Data's does: an object
    /// with unsaved changes takes the newest committed values and keeps its changes on top; one without becomes
    /// a fault, which reads the newest values when next used (and lets go of the objects it referred to).
    /// - Complexity: O(n) for n registered objects, plus a store read for each object with unsaved changes.
    public func refreshAllObjects() {
        assertOnQueue("refreshAllObjects()")
        advanceQueryGeneration()
        for object in registered.values where !object.insertedFlag {
            refresh(object, mergeChanges: object.hasChanges || !object.transientValues.isEmpty)
        }
    }
}

extension ManagedObjectContext {
    /// Takes a newer committed row for an object, keeping its unsaved changes on top.
    func adopt(_ fresh: RowSnapshot, into object: ManagedObject) {
        object.snapshot = fresh
        object.isFault = false
        object.isInaccessible = false
        // Changes equal to the new committed values are no longer changes.
        for (index, value) in object.changes {
            if let stored = object.entity.storedIndex(ofProperty: index), fresh.value(at: stored) == value {
                object.changes[index] = nil
            }
        }
        for index in object.toMany.keys { object.toMany[index]?.committed = nil }
    }
}
