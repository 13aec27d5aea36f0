/// What a `BatchDeleteResult` holds: Core Data's `NSBatchDeleteRequestResultType`.
public enum BatchDeleteRequestResultType: Sendable, Hashable {
    /// Whether the request succeeded (`true`).
    case statusOnly
    /// The IDs of the deleted rows, those the delete rules cascaded to included.
    case objectIDs
    /// How many rows were deleted, those the delete rules cascaded to included.
    case count
}

/// Deletes the rows a fetch request matches, in one store transaction, without managed objects: Core Data's
/// `NSBatchDeleteRequest`.
///
/// For example:
/// ```swift
/// var fetch = FetchRequest<ManagedObject>(entityName: "Pod")
/// fetch.predicate = try FetchPredicate(format: "downloads == 0")
/// var request = BatchDeleteRequest(fetchRequest: fetch)
/// request.resultType = .objectIDs
/// let result = try context.execute(request)
/// ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.changes, into: [context])
/// ```
/// Relationships follow the delete rules Core Data applies to batch deletes: `.cascade` deletes the destinations too
/// (and applies their rules); `.nullify` clears the inverse reference of each destination and, where the inverse is
/// a to-many, moves the destination's version on so a context holding it conflicts as after a save; a nullify whose
/// inverse is required fails the request in the shapes public reports of Core Data's failure show — a to-one or
/// many-to-many whose destination (not deleted by the request itself) would be left with no member, a to-many
/// whose destinations would lose their required to-one — and a one-to-one's required inverse is cleared;
/// `.noAction` does nothing; and `.deny` is not supported: a request that would delete rows of an entity with a deny
/// relationship is refused before anything is written. No validation rule runs. The BatchRequests article cites the
/// source of each rule.
public struct BatchDeleteRequest: PersistentStoreRequest {
    /// The entity whose rows are deleted.
    public let entityName: String
    /// Which rows (nil for every row of the entity); with `sortDescriptors`, `fetchLimit` and `fetchOffset`.
    public var predicate: FetchPredicate?
    /// The order `fetchLimit` and `fetchOffset` count in.
    public var sortDescriptors: [SortKey] = []
    /// The most rows to delete; 0 for no limit.
    public var fetchLimit = 0
    /// Matching rows to skip first.
    public var fetchOffset = 0
    /// Whether rows of sub-entities are deleted too. Default true.
    public var includesSubentities = true
    /// Rows named by ID instead of by a fetch (nil when a fetch request names them).
    public let objectIDs: [ManagedObjectID]?
    /// What the result holds. Default `.statusOnly`.
    public var resultType: BatchDeleteRequestResultType = .statusOnly

    public var requestType: PersistentStoreRequestType { .batchDelete }

    /// A request to delete what `fetchRequest` matches (its entity, predicate, sort keys, limit and offset).
    public init<T: FetchRequestResult>(fetchRequest: FetchRequest<T>) {
        entityName = fetchRequest.entityName ?? ""
        predicate = fetchRequest.predicate
        sortDescriptors = fetchRequest.sortDescriptors
        fetchLimit = fetchRequest.fetchLimit
        fetchOffset = fetchRequest.fetchOffset
        includesSubentities = fetchRequest.includesSubentities
        objectIDs = nil
        entityNameFromResult = fetchRequest.entityName == nil ? T.self as? ManagedObject.Type : nil
    }

    /// A request to delete the objects with `objectIDs`, all of one entity (mixing entities is refused when the
    /// request runs, as in Core Data).
    public init(objectIDs: [ManagedObjectID]) {
        entityName = objectIDs.first?.entityName ?? ""
        self.objectIDs = objectIDs
        entityNameFromResult = nil
    }

    /// For a fetch request built for a managed object class, without an entity name: the class.
    let entityNameFromResult: ManagedObject.Type?
}
