/// What a `BatchUpdateResult` holds: Core Data's `NSBatchUpdateRequestResultType`.
public enum BatchUpdateRequestResultType: Sendable, Hashable {
    /// Whether the request succeeded (`true`).
    case statusOnly
    /// The IDs of the updated rows.
    case updatedObjectIDs
    /// How many rows were updated.
    case updatedObjectsCount
}

/// Sets attributes of every row of an entity that matches a predicate, in one store transaction, without managed
/// objects: Core Data's `NSBatchUpdateRequest`.
///
/// For example:
/// ```swift
/// var request = BatchUpdateRequest(entityName: "Pod")
/// request.predicate = try FetchPredicate(format: "downloads < %d", 10)
/// request.propertiesToUpdate = ["license": "unknown"]
/// request.resultType = .updatedObjectIDs
/// let result = try context.execute(request)
/// ```
/// Each updated row's version grows by one, as after a save, so a context still holding the old values conflicts
/// when it saves them. Uniqueness constraints hold (a request that would give two rows the same constrained values
/// fails and writes nothing); no validation rule runs. A key that is not a stored attribute (a relationship, a
/// transient or derived attribute, an unknown name), a value of the wrong type, or nil for a non-optional attribute
/// is refused before anything is written.
public struct BatchUpdateRequest: PersistentStoreRequest {
    /// The entity whose rows are updated.
    public let entityName: String
    /// Which rows; nil for every row of the entity.
    public var predicate: FetchPredicate?
    /// The new values by attribute name (`NSNull()` or an optional's nil for nil).
    public var propertiesToUpdate: [String: Any]?
    /// Whether rows of sub-entities are updated too. Default true.
    public var includesSubentities = true
    /// What the result holds. Default `.statusOnly`.
    public var resultType: BatchUpdateRequestResultType = .statusOnly

    public var requestType: PersistentStoreRequestType { .batchUpdate }

    /// A request to update rows of the entity named `entityName`.
    public init(entityName: String) {
        self.entityName = entityName
    }

    /// A request to update rows of `entity`.
    public init(entity: EntityDescription) {
        self.init(entityName: entity.name)
    }
}
