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
/// request.propertiesToUpdate = [
///     "license": "unknown",
///     "downloads": try PropertyExpression(format: "downloads + 1"),
///     "slug": try PropertyExpression(format: "lowercase:(name)"),
/// ]
/// request.resultType = .updatedObjectIDs
/// let result = try context.execute(request)
/// ```
/// A value is a constant or, as Core Data's reference puts it, an expression "that evaluates to a scalar value": a
/// ``PropertyExpression`` over the row's own attributes, constants and NSExpression's functions, computed for each
/// row from the row as it was before the request (so `["a": b, "b": a]` swaps them). SQLite computes it in its
/// `UPDATE`; LMDB and the in-memory store row by row, with the same functions and conversions.
///
/// Each updated row's version grows by one, as after a save, so a context still holding the old values conflicts
/// when it saves them. Uniqueness constraints hold (a request that would give two rows the same constrained values
/// fails and writes nothing); no validation rule runs. Refused before anything is written: a key that is not a
/// stored attribute (a relationship, a transient or derived attribute, an unknown name), a constant of the wrong type
/// or nil for a non-optional attribute, an expression that does not bind or reads past the row (`author.name`), or
/// whose type the attribute cannot hold (`lowercase:(name)` for a number). A computed value the attribute cannot
/// hold without loss (a fraction for an integer, nil for a required attribute) fails the request, naming the row,
/// and nothing is written.
public struct BatchUpdateRequest: PersistentStoreRequest {
    /// The entity whose rows are updated.
    public let entityName: String
    /// Which rows; nil for every row of the entity.
    public var predicate: FetchPredicate?
    /// The new values by attribute name: a constant (`NSNull()` or an optional's nil for nil) or a
    /// ``PropertyExpression`` computed from each row.
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
