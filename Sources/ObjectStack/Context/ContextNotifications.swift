import Foundation

extension ManagedObjectContext {
    /// Posted (object: the context) when `processPendingChanges()` finds inserted, updated, deleted or
    /// refreshed objects since the last time; userInfo holds the sets under `NotificationKey`s.
    public static let objectsDidChangeNotification = Notification.Name("ObjectStackObjectsDidChange")
    /// Posted (object: the context) at the start of `save()`, before validation.
    public static let willSaveNotification = Notification.Name("ObjectStackContextWillSave")
    /// Posted (object: the context) after a successful save; userInfo holds the saved objects and their IDs.
    /// Pass it to another context's `mergeChanges(fromContextDidSave:)`.
    public static let didSaveNotification = Notification.Name("ObjectStackContextDidSave")
    /// Posted (object: the context) after a successful save; userInfo holds only the ID sets, which are
    /// safe to read on any thread.
    public static let didSaveObjectIDsNotification = Notification.Name("ObjectStackContextDidSaveObjectIDs")

    /// The userInfo keys of the context notifications.
    public enum NotificationKey: String, Sendable {
        case insertedObjects = "inserted"
        case updatedObjects = "updated"
        case deletedObjects = "deleted"
        case refreshedObjects = "refreshed"
        case invalidatedObjects = "invalidated"
        case insertedObjectIDs
        case updatedObjectIDs
        case deletedObjectIDs
        case refreshedObjectIDs
        case invalidatedObjectIDs
        case invalidatedAllObjects
    }
}

/// The changes gathered between two `objectsDidChange` notifications.
struct PendingChanges {
    var inserted: Set<ManagedObject> = []
    var updated: Set<ManagedObject> = []
    var deleted: Set<ManagedObject> = []
    var refreshed: Set<ManagedObject> = []
    var invalidated: Set<ManagedObject> = []
    var invalidatedAll = false

    var isEmpty: Bool {
        inserted.isEmpty && updated.isEmpty && deleted.isEmpty && refreshed.isEmpty && invalidated.isEmpty
            && !invalidatedAll
    }

    /// The notification's userInfo: objects under the plain keys, IDs under the `…ObjectIDs` keys.
    var userInfo: [AnyHashable: Any] {
        var info: [AnyHashable: Any] = [:]
        typealias Key = ManagedObjectContext.NotificationKey
        let groups: [(Set<ManagedObject>, Key, Key)] = [
            (inserted, .insertedObjects, .insertedObjectIDs), (updated, .updatedObjects, .updatedObjectIDs),
            (deleted, .deletedObjects, .deletedObjectIDs), (refreshed, .refreshedObjects, .refreshedObjectIDs),
            (invalidated, .invalidatedObjects, .invalidatedObjectIDs),
        ]
        for (objects, objectsKey, idsKey) in groups where !objects.isEmpty {
            info[objectsKey.rawValue] = objects
            info[idsKey.rawValue] = Set(objectIDsOf: objects)
        }
        if invalidatedAll { info[Key.invalidatedAllObjects.rawValue] = true }
        return info
    }
}

/// The updated objects one `objectsDidChange` announced, with the ID set it posted for them.
struct AnnouncedUpdates {
    /// The objects, as posted.
    let objects: Set<ManagedObject>
    /// Their IDs, as posted.
    let objectIDs: Set<ManagedObjectID>?
}

/// A typed view of a context's save: the IDs of what it inserted, updated and deleted.
///
/// For example:
/// ```swift
/// NotificationCenter.default.addObserver(forName: ManagedObjectContext.didSaveNotification, object: background, queue: nil) { note in
///     guard let save = ContextDidSave(note) else { return }
///     print(save.insertedObjectIDs.count, "inserted")
/// }
/// ```
public struct ContextDidSave: Sendable {
    /// IDs of the objects the save inserted.
    public let insertedObjectIDs: Set<ManagedObjectID>
    /// IDs of the objects the save updated.
    public let updatedObjectIDs: Set<ManagedObjectID>
    /// IDs of the objects the save deleted.
    public let deletedObjectIDs: Set<ManagedObjectID>

    /// Creates the view from a `didSaveNotification` or `didSaveObjectIDsNotification`; nil for others.
    public init?(_ notification: Notification) {
        guard
            notification.name == ManagedObjectContext.didSaveNotification
                || notification.name == ManagedObjectContext.didSaveObjectIDsNotification
        else { return nil }
        typealias Key = ManagedObjectContext.NotificationKey
        let info = notification.userInfo ?? [:]
        insertedObjectIDs = info[Key.insertedObjectIDs.rawValue] as? Set<ManagedObjectID> ?? []
        updatedObjectIDs = info[Key.updatedObjectIDs.rawValue] as? Set<ManagedObjectID> ?? []
        deletedObjectIDs = info[Key.deletedObjectIDs.rawValue] as? Set<ManagedObjectID> ?? []
    }

    /// Creates the view from ID sets.
    public init(inserted: Set<ManagedObjectID>, updated: Set<ManagedObjectID>, deleted: Set<ManagedObjectID>) {
        insertedObjectIDs = inserted
        updatedObjectIDs = updated
        deletedObjectIDs = deleted
    }
}

extension Set where Element == ManagedObjectID {
    /// The IDs of `objects`, hashed straight into a set of their size: mapping to an array first was a second
    /// pass, and a retain per ID, over every object of a large save.
    init(objectIDsOf objects: Set<ManagedObject>) {
        self.init(minimumCapacity: objects.count)
        for object in objects { insert(object.objectID) }
    }
}
