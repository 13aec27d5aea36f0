import Foundation

extension FetchedResultsController {
    // MARK: - Tracking changes

    /// Applies one `objectsDidChange` of the context to the results and tells the delegate.
    ///
    /// As in Core Data, only while there is a delegate: without one the results stay as `performFetch()` left
    /// them. After the context's `reset()` (every object invalidated) nothing is reported and the results stay
    /// as they were, no longer tracked, until the next `performFetch()`.
    ///
    /// Only the objects the notification names, and the objects that reach them through the relationships the
    /// predicate and sort keys read, are looked at: each is checked against the request's entity and predicate
    /// and its sort keys read in memory (firing its fault if it is one), then placed by binary search. Nothing
    /// is fetched again. Unlike Core Data, results are also kept current across key paths through relationships.
    /// - Complexity: O(c (log n + B + n/B)) for c changed (and dependent) objects and n results (see `FetchedRows`).
    func contextDidChange(_ notification: Notification) {
        guard let delegate, !awaitsFetch, var current = state else { return }
        typealias Key = ManagedObjectContext.NotificationKey
        let info = notification.userInfo ?? [:]
        if info[Key.invalidatedAllObjects.rawValue] as? Bool == true {
            // Core Data sends no per-object change here; the objects listed can no longer be read, so nothing
            // is applied to them until the app fetches again.
            awaitsFetch = true
            return
        }
        // Taken out while it changes, so the one copy is mutated in place.
        state = nil
        defer { state = current }
        func objects(_ key: Key) -> Set<ManagedObject> { info[key.rawValue] as? Set<ManagedObject> ?? [] }
        let gone = objects(.deletedObjects).union(objects(.invalidatedObjects))
        var candidates = gone
        candidates.formUnion(objects(.insertedObjects))
        candidates.formUnion(objects(.updatedObjects))
        candidates.formUnion(objects(.refreshedObjects))
        let kinds = current.candidateEntities
        let context = managedObjectContext
        if !current.dependencies.isEmpty {
            // A related object's change (an author renamed, for books sorted by author.name) re-checks the
            // objects that reach it; when that cannot be traced back, every result.
            if let dependants = current.dependencies.dependants(of: candidates, in: context) {
                candidates.formUnion(dependants)
            } else {
                for section in current.sections { candidates.formUnion(section.rows.entries.lazy.map(\.object)) }
            }
        }
        let evaluator = PredicateEvaluator(resolver: ContextResolver(context: context))
        let predicate = current.predicate
        let sortKeys = current.order.sortKeys
        let changes = current.apply(candidates.lazy.filter { kinds.contains(ObjectIdentifier($0.entity)) }) { object in
            guard !gone.contains(object), !object.deletedFlag, object.managedObjectContext === context else {
                return nil
            }
            object.fireFault()
            // A fault whose row is gone (deleted elsewhere, not merged yet) is no longer a result.
            guard !object.isInaccessible else { return nil }
            if let predicate, (try? evaluator.evaluate(predicate, on: object)) != true { return nil }
            return try? sortKeys.map { try evaluator.value(of: $0.keyPath, on: object) }
        }
        guard !changes.isEmpty else { return }
        state = current
        report(changes, to: delegate)
    }

    /// Tells the delegate: a snapshot delegate the whole results only; any other, in Core Data's order,
    /// sections before objects, each between will and did.
    private func report(_ changes: FetchedResultsChanges, to delegate: any FetchedResultsControllerDelegate) {
        if let snapshotDelegate = delegate as? any FetchedResultsControllerSnapshotDelegate {
            guard let state else { return }
            let snapshot = FetchedResultsSnapshot(
                sectionIdentifiers: state.sections.map(\.name), sections: state.sections.map(\.rows))
            snapshotDelegate.controller(self, didChangeContentWith: snapshot)
            return
        }
        delegate.controllerWillChangeContent(self)
        for (index, section) in changes.deletedSections {
            delegate.controller(self, didChange: self.section(from: section), atSectionIndex: index, for: .delete)
        }
        for (index, section) in changes.insertedSections {
            delegate.controller(self, didChange: self.section(from: section), atSectionIndex: index, for: .insert)
        }
        for change in changes.objects {
            delegate.controller(
                self, didChange: change.object, at: change.indexPath, for: change.type,
                newIndexPath: change.newIndexPath)
        }
        delegate.controllerDidChangeContent(self)
    }
}
