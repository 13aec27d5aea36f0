import Foundation

extension ManagedObjectContext {
    // MARK: - Merging saves from other contexts

    /// Brings another context's save into this one.
    ///
    /// Inserted objects become reachable (registered as faults), updated registered objects are refreshed —
    /// keeping this context's own unsaved changes on top — and deleted registered objects are removed.
    /// `objectsDidChangeNotification` reports them as inserted, refreshed and deleted (as Core Data does:
    /// a merged update is a refresh from the store, not a change of this context). Works between contexts
    /// of one coordinator and between separate coordinators on the same store. Call it on this context's
    /// queue; it reads only the notification's object IDs, never the other context's objects.
    /// - Complexity: O(c) in the number of changed objects, whatever the number of registered objects.
    public func mergeChanges(fromContextDidSave notification: Notification) {
        assertOnQueue("mergeChanges(fromContextDidSave:)")
        guard let save = ContextDidSave(notification) else { return }
        // A pinned context moves to the current generation first, so the merge reads the rows it announces.
        advanceQueryGeneration()
        let source = notification.object as? ManagedObjectContext
        let sharesCoordinator = source?.coordinatorStorage != nil && source?.coordinatorStorage === coordinatorStorage
        merge(save, rowsAreCached: sharesCoordinator)
    }

    /// Merges saved changes given as IDs. With `rowsAreCached`, the coordinator's row cache already holds the
    /// new rows (the save went through it), so no store read is needed.
    func merge(_ save: ContextDidSave, rowsAreCached: Bool) {
        let updated = save.updatedObjectIDs.map(ownID).compactMap { registered[resolved($0)] }
        if !updated.isEmpty, let rows = try? parentSnapshots(for: updated.map(\.objectID), fresh: !rowsAreCached) {
            for (object, row) in zip(updated, rows) {
                guard let row else { continue }
                if object.isFault {
                    object.snapshot = nil
                } else {
                    adopt(row, into: object)
                }
                pendingNotification.refreshed.insert(object)
            }
        }
        for id in save.deletedObjectIDs.map(ownID) {
            guard let object = registered[resolved(id)] else { continue }
            detachPendingInserts()
            insertedSet.remove(object)
            changedSet.remove(object)
            deletedSet.remove(object)
            object.deletedFlag = false
            unregister(object)
            pendingNotification.updated.remove(object)
            pendingNotification.refreshed.remove(object)
            pendingNotification.deleted.insert(object)
        }
        for id in save.insertedObjectIDs.map(ownID) {
            let object = object(with: id)
            detachPendingInserts()
            pendingNotification.inserted.insert(object)
        }
        processPendingChanges()
    }

    /// The same ID with this context's model's entity (a save from a separate stack uses its own model).
    private func ownID(_ id: ManagedObjectID) -> ManagedObjectID {
        guard let entity = model.entitiesByName[id.entityName], entity !== id.entity, !id.isTemporaryID else {
            return id
        }
        return ManagedObjectID(entity: entity, storeIdentifier: id.storeIdentifier, primaryKey: id.key)
    }

    // MARK: - Telling other contexts

    /// After a save: children that merge automatically refresh, and so do automatically merging contexts
    /// on the same coordinator (for a root context). `except` is the child whose save this was.
    func announce(_ save: ContextDidSave, except origin: ManagedObjectContext?) {
        let listeners = children.withLock { list in list.compactMap(\.context) }
        for child in listeners where child !== origin && child.automaticMergeStorage {
            child.perform { child.merge(save, rowsAreCached: false) }
        }
        if let coordinator = coordinatorStorage, origin == nil {
            for context in coordinator.automaticallyMergingContexts() where context !== self {
                context.perform { context.merge(save, rowsAreCached: true) }
            }
        }
    }

    /// Tells children (and their children) that temporary IDs were replaced by permanent ones.
    func forwardPermanentIDs(_ mapping: [ManagedObjectID: ManagedObjectID]) {
        guard !mapping.isEmpty else { return }
        let listeners = children.withLock { list in list.compactMap(\.context) }
        for child in listeners {
            child.perform { child.adoptPermanentIDs(mapping) }
        }
    }

    /// Re-keys objects a parent gave permanent IDs, and remembers the mapping for late references.
    func adoptPermanentIDs(_ mapping: [ManagedObjectID: ManagedObjectID]) {
        // A child must resolve the old IDs whatever it holds: its snapshots may still name them.
        permanentIDs.merge(mapping) { _, new in new }
        let mine = mapping.filter { registered[$0.key] != nil }
        replaceObjectIDs(mine)
        forwardPermanentIDs(mapping)
    }
}
