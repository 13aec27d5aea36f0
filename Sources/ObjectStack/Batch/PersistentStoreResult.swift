/// What a `PersistentStoreRequest` returns: Core Data's `NSPersistentStoreResult`. Cast it to the request's result
/// class (`BatchInsertResult`, `BatchUpdateResult`, `BatchDeleteResult`), or call the `execute(_:)` overload that
/// returns that class.
public class PersistentStoreResult {
    /// The changes the request made, keyed as `mergeChanges(fromRemoteContextSave:into:)` reads them
    /// (`"inserted"`, `"updated"`, `"deleted"`, each an array of `ManagedObjectID`s). Only requests whose result type
    /// returns object IDs know them; for the others this is empty.
    public let changes: [AnyHashable: Any]

    init(changes batch: BatchChanges?) {
        typealias Key = ManagedObjectContext.NotificationKey
        var changes: [AnyHashable: Any] = [:]
        if let inserted = batch?.insertedIDs, !inserted.isEmpty { changes[Key.insertedObjects.rawValue] = inserted }
        if let updated = batch?.updatedIDs, !updated.isEmpty { changes[Key.updatedObjects.rawValue] = updated }
        if let deleted = batch?.deletedIDs, !deleted.isEmpty { changes[Key.deletedObjects.rawValue] = deleted }
        self.changes = changes
    }
}
