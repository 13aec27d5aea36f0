import Foundation

extension ManagedObjectContext {
    // MARK: - Merging changes made elsewhere

    /// Brings changes made outside the contexts — by a batch request, another process, another stack — into each
    /// of `contexts`, on each context's own queue: Core Data's `mergeChanges(fromRemoteContextSave:into:)`.
    ///
    /// For example:
    /// ```swift
    /// let result = try background.execute(deleteRequest)   // resultType .objectIDs
    /// ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.changes, into: [viewContext])
    /// ```
    /// `changes` holds, under `"inserted"`, `"updated"` and `"deleted"` (or the `…ObjectIDs` keys of a save
    /// notification), arrays or sets of `ManagedObjectID`s, of their `uriRepresentation()`s, or of managed objects
    /// (only their IDs are read). In each context, registered objects that were updated are refreshed from the store
    /// (keeping the context's own unsaved changes on top), registered objects that were deleted are removed, and
    /// inserted objects become reachable; `objectsDidChangeNotification` reports them as refreshed, deleted and
    /// inserted, so a fetched results controller follows. IDs a context's store does not know are skipped.
    /// - Note: Safe from any thread; each context is merged with `performAndWait`, so do not call it from a
    ///   context's queue while holding another's.
    public static func mergeChanges(
        fromRemoteContextSave changes: [AnyHashable: Any], into contexts: [ManagedObjectContext]
    ) {
        typealias Key = NotificationKey
        for context in contexts {
            context.performAndWait {
                func ids(_ keys: Key...) -> Set<ManagedObjectID> {
                    var found = Set<ManagedObjectID>()
                    for key in keys {
                        guard let value = changes[key.rawValue] else { continue }
                        found.formUnion(context.remoteIDs(value))
                    }
                    return found
                }
                let save = ContextDidSave(
                    inserted: ids(.insertedObjects, .insertedObjectIDs),
                    updated: ids(.updatedObjects, .updatedObjectIDs),
                    deleted: ids(.deletedObjects, .deletedObjectIDs))
                guard
                    !save.insertedObjectIDs.isEmpty || !save.updatedObjectIDs.isEmpty || !save.deletedObjectIDs.isEmpty
                else { return }
                // The rows changed behind the coordinator's cache: a merge reads them fresh from the store.
                context.merge(save, rowsAreCached: false)
            }
        }
    }

    /// The permanent IDs a value of a remote-change dictionary names, for this context's stores.
    private func remoteIDs(_ value: Any) -> [ManagedObjectID] {
        let items: [Any]
        switch value {
        case let ids as [ManagedObjectID]: items = ids
        case let ids as Set<ManagedObjectID>: items = Array(ids)
        case let urls as [URL]: items = urls
        case let urls as Set<URL>: items = Array(urls)
        case let objects as [ManagedObject]: items = objects
        case let objects as Set<ManagedObject>: items = Array(objects)
        case let any as [Any]: items = any
        default: items = [value]
        }
        let stores = Set(coordinator.persistentStores.map(\.identifier))
        return items.compactMap { item in
            let id: ManagedObjectID?
            switch item {
            case let objectID as ManagedObjectID: id = objectID
            case let url as URL: id = coordinator.managedObjectID(forURIRepresentation: url)
            case let object as ManagedObject: id = object.objectID
            default: id = nil
            }
            guard let id, !id.isTemporaryID, stores.contains(id.storeIdentifier),
                model.entitiesByName[id.entityName] != nil
            else { return nil }
            return id
        }
    }
}
