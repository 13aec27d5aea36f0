import Foundation

extension ManagedObjectContext {
    // MARK: - Undo

    /// The undo manager the context records its changes with; nil (the default, as on iOS) records nothing and
    /// costs nothing.
    ///
    /// For example:
    /// ```swift
    /// context.undoManager = ObjectUndoManager()
    /// book.title = "Dune Messiah"
    /// context.processPendingChanges()   // the end of an event: the change is one undo step
    /// context.undo()                    // book.title is back to what it was; the context posts objectsDidChange
    /// ```
    /// As in Core Data, the context records inserts, deletes, and attribute and relationship changes (both sides
    /// of an inverse, and what delete rules change) when it processes pending changes: one undo operation per
    /// `processPendingChanges()` cycle, in the manager's open group. With `groupsByEvent` that cycle is the
    /// event: `processPendingChanges()` closes the group, and so do the end of a `perform` block or of a
    /// main-queue turn and the start of a fetch or save, which process pending changes first. Undoing restores
    /// the values and the inserted, updated and deleted sets, posts `objectsDidChangeNotification`, and registers
    /// the redo. Undoing after a save makes the context dirty again (a later save writes the undone state);
    /// `rollback()` and `reset()` empty the manager's stacks. Changes pending when the manager is set are not
    /// recorded. Changes merged from other contexts are not recorded (they are not this context's edits).
    /// - Note: The manager is used on the context's queue: its checkpoints make the context process its pending
    ///   changes.
    public var undoManager: ObjectUndoManager? {
        get { undoRecorder?.manager }
        set {
            assertOnQueue("undoManager")
            guard newValue !== undoRecorder?.manager else { return }
            undoRecorder?.manager.removeCheckpointContext(self)
            undoRecorder = newValue.map { ContextUndoRecorder(manager: $0) }
            newValue?.addCheckpointContext(self)
        }
    }

    /// Asks the undo manager to undo its last group (Core Data's `undo()`); nothing without a manager.
    public func undo() {
        assertOnQueue("undo()")
        undoManager?.undo()
    }

    /// Asks the undo manager to redo its last undone group (Core Data's `redo()`); nothing without a manager.
    public func redo() {
        assertOnQueue("redo()")
        undoManager?.redo()
    }

    // MARK: - Recording

    /// Registers the cycle's undo step with the manager; called by `processPendingChanges()` once delete rules
    /// ran.
    func registerUndoStep(_ recorder: ContextUndoRecorder) {
        guard let step = recorder.takeStep(in: self) else { return }
        recorder.manager.registerUndo(withTarget: self) { context in context.applyUndo(step) }
    }

    /// The manager hit a checkpoint (a group opens or closes): the pending changes are recorded now, into the
    /// group that is still open.
    func undoCheckpoint() {
        processPendingChanges(endingUndoEvent: false)
    }

    /// Empties the undo history: rollback and reset discard what it would undo.
    func discardUndoHistory() {
        guard let recorder = undoRecorder else { return }
        recorder.discard()
        recorder.manager.removeAllActions()
    }

    /// Notes a property's value before it changes, for the cycle's undo step.
    func recordUndo(of object: ManagedObject, property index: Int, in recorder: ContextUndoRecorder) {
        recorder.propertyWillChange(object, index: index) { currentUndoValue(of: object, at: index) }
    }

    /// Notes that an object is about to be inserted, deleted, brought back or removed.
    func recordExistenceChange(of object: ManagedObject) {
        undoRecorder?.existenceWillChange(object, existed: exists(object))
    }

    /// Whether an object is part of the context's graph now: registered here, and not deleted.
    func exists(_ object: ManagedObject) -> Bool {
        object.managedObjectContext === self && registered[object.objectID] === object && !object.deletedFlag
    }

    /// A property's value now, as an undo step keeps it.
    private func currentUndoValue(of object: ManagedObject, at index: Int) -> UndoValue {
        switch object.entity.properties[index] {
        case .attribute(let attribute):
            return .value(object.attributeValue(attribute))
        case .relationship(let relationship) where relationship.isToMany:
            return .members(object.toManyIDs(relationship).map { self.object(with: $0) })
        case .relationship(let relationship):
            return .object(object.toOneID(relationship).map { self.object(with: $0) })
        }
    }

    /// Whether a property holds a value now (so restoring it would change nothing).
    func holds(_ value: UndoValue, at index: Int, of object: ManagedObject) -> Bool {
        switch (object.entity.properties[index], value) {
        case (.attribute(let attribute), .value(let old)):
            return object.attributeValue(attribute) == old
        case (.relationship(let relationship), .object(let old)):
            return object.toOneID(relationship) == old?.objectID
        case (.relationship(let relationship), .members(let old)):
            return Set(object.toManyIDs(relationship)) == Set(old.map(\.objectID))
        default:
            return true
        }
    }

    // MARK: - Applying

    /// Undoes (or redoes) a step: objects come back, values are restored, objects leave; then the context
    /// processes the changes, which posts `objectsDidChange` and registers the inverse step with the manager.
    func applyUndo(_ step: ContextUndoStep) {
        assertOnQueue("undo")
        // Objects come back first, so restored references reach registered objects; objects leave last.
        for (object, exists) in step.existence where exists { bringBack(object) }
        for (object, index, value) in step.values where object.managedObjectContext === self {
            restore(value, at: index, of: object)
        }
        for (object, exists) in step.existence where !exists { takeAway(object) }
        processPendingChanges(endingUndoEvent: false)
    }

    private func restore(_ value: UndoValue, at index: Int, of object: ManagedObject) {
        switch (object.entity.properties[index], value) {
        case (.attribute(let attribute), .value(let old)):
            object.setAttribute(attribute, old)
        case (.relationship(let relationship), .object(let old)):
            // The other side of an inverse has its own record in the step: each side is restored alone.
            object.setToOne(relationship, to: old?.objectID, maintainInverse: false)
        case (.relationship(let relationship), .members(let old)):
            let current = object.toManyIDs(relationship)
            let wanted = old.map(\.objectID)
            let wantedSet = Set(wanted)
            let currentSet = Set(current)
            let removing = current.filter { !wantedSet.contains($0) }
            let adding = wanted.filter { !currentSet.contains($0) }
            guard !removing.isEmpty || !adding.isEmpty else { return }
            object.changeToMany(relationship) { state in
                for id in removing { state.remove(id) }
                for id in adding { state.add(id) }
            }
        default:
            break
        }
    }

    /// Brings an object back into the graph: a deleted one is deleted no more; one that left the context (an
    /// insert undone, or a deletion saved) is inserted again, as Core Data does.
    private func bringBack(_ object: ManagedObject) {
        guard !exists(object) else { return }
        recordExistenceChange(of: object)
        if object.managedObjectContext === self, registered[object.objectID] === object {
            object.deletedFlag = false
            deletedSet.remove(object)
            deletionsToPropagate.removeAll { $0 === object }
            pendingNotification.deleted.remove(object)
            detachPendingInserts()
            pendingNotification.inserted.insert(object)
            scheduleProcessing()
            return
        }
        guard object.managedObjectContext == nil, registered[object.objectID] == nil else { return }
        object.managedObjectContext = self
        registered[object.objectID] = object
        object.insertedFlag = true
        object.deletedFlag = false
        detachPendingInserts()
        insertedSet.insert(object)
        if !object.objectID.isTemporaryID {
            // A saved deletion: the row and its links are gone from the store, so every member is new again.
            for index in object.toMany.keys {
                guard let state = object.toMany[index] else { continue }
                let members = state.current(committed: state.committed ?? [])
                object.toMany[index] = ToManyState(committed: [], added: members)
            }
        }
        pendingNotification.inserted.insert(object)
        scheduleProcessing()
    }

    /// Takes an object out of the graph: an unsaved insert leaves the context; a saved object is deleted (its
    /// delete rules do not run again: the step restores what they changed).
    private func takeAway(_ object: ManagedObject) {
        guard exists(object) else { return }
        recordExistenceChange(of: object)
        if object.insertedFlag {
            object.insertedFlag = false
            detachPendingInserts()
            insertedSet.remove(object)
            pendingNotification.inserted.remove(object)
            pendingNotification.updated.remove(object)
            if object.insertAnnounced { pendingNotification.deleted.insert(object) }
            unregister(object)
        } else {
            object.deletedFlag = true
            deletedSet.insert(object)
            pendingNotification.updated.remove(object)
            pendingNotification.deleted.insert(object)
        }
        scheduleProcessing()
    }
}
