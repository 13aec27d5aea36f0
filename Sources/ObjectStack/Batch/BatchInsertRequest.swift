/// What a `BatchInsertResult` holds: Core Data's `NSBatchInsertRequestResultType`.
public enum BatchInsertRequestResultType: Sendable, Hashable {
    /// Whether the request succeeded (`true`).
    case statusOnly
    /// The IDs of the rows the request wrote (inserted and, under a merging policy, updated), in the order of the
    /// objects given.
    case objectIDs
    /// How many rows the request wrote.
    case count
}

/// Inserts rows of one entity from dictionaries of values, in one store transaction, without managed objects:
/// Core Data's `NSBatchInsertRequest`.
///
/// For example:
/// ```swift
/// var request = BatchInsertRequest(entityName: "Pod", objects: [
///     ["name": "Alamofire", "version": "5.9.1", "authors": "Alamofire Software Foundation"],
///     ["name": "Kingfisher", "version": "8.1.0", "authors": "onevcat"],
/// ])
/// request.resultType = .objectIDs
/// let result = try context.execute(request)
/// ```
/// Keys are attribute names. Every dictionary is checked before any row is written: an unknown key, a key naming a
/// relationship (batch inserts wire none), a transient or derived attribute, a value of the wrong type, or no value
/// for a non-optional attribute without a default is refused with an `ObjectStackError` naming the object's index
/// (`objectIndex`) and the key. Attributes a dictionary leaves out get their default value. No validation rule
/// runs (no minimum, maximum or pattern, no `validateForInsert()`), as in Core Data.
///
/// Uniqueness constraints hold: under the executing context's `.error` merge policy a row that repeats another's
/// constrained values, or one already in the store, fails the request and nothing is written; under a merging
/// policy the row already there is updated instead (an "upsert"): `.mergeByPropertyObjectTrump` takes the keys the
/// dictionary gives, `.overwrite` the whole new row, `.mergeByPropertyStoreTrump` only fills the stored row's nil
/// values, and `.rollback` keeps the stored row as it is.
public struct BatchInsertRequest: PersistentStoreRequest {
    /// The entity whose rows are inserted.
    public let entityName: String
    /// The objects to insert, as dictionaries of attribute values (nil when a handler supplies them).
    public var objectsToInsert: [[String: Any]]?
    /// Called again and again with an empty dictionary to fill with one object's values; returns true when there
    /// are no more objects (the dictionary of that call is not inserted).
    public var dictionaryHandler: ((inout [String: Any]) -> Bool)?
    /// Called again and again with a new, unregistered object of the entity to set one object's values on; returns
    /// true when there are no more objects (the object of that call is not inserted). Relationships must stay
    /// empty.
    public var managedObjectHandler: ((ManagedObject) -> Bool)?
    /// What the result holds. Default `.statusOnly`.
    public var resultType: BatchInsertRequestResultType = .statusOnly

    public var requestType: PersistentStoreRequestType { .batchInsert }

    /// A request to insert `objects` into the entity named `entityName`.
    public init(entityName: String, objects: [[String: Any]]) {
        self.entityName = entityName
        self.objectsToInsert = objects
    }

    /// A request to insert `objects` into `entity`.
    public init(entity: EntityDescription, objects: [[String: Any]]) {
        self.init(entityName: entity.name, objects: objects)
    }

    /// A request whose objects come from `dictionaryHandler`, one dictionary per call, until it returns true.
    ///
    /// For example:
    /// ```swift
    /// var index = 0
    /// let request = BatchInsertRequest(entityName: "Pod", dictionaryHandler: { values in
    ///     guard index < specs.count else { return true }
    ///     values = ["name": specs[index].name, "version": specs[index].version, "authors": specs[index].authors]
    ///     index += 1
    ///     return false
    /// })
    /// ```
    public init(entityName: String, dictionaryHandler: @escaping (inout [String: Any]) -> Bool) {
        self.entityName = entityName
        self.dictionaryHandler = dictionaryHandler
    }

    /// A request whose objects come from `managedObjectHandler`, one object per call, until it returns true.
    public init(entityName: String, managedObjectHandler: @escaping (ManagedObject) -> Bool) {
        self.entityName = entityName
        self.managedObjectHandler = managedObjectHandler
    }
}
