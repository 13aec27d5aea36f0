/// What kind of request a context hands to its store whole with `execute(_:)`.
public enum PersistentStoreRequestType: Sendable, Hashable {
    /// A `BatchInsertRequest`.
    case batchInsert
    /// A `BatchUpdateRequest`.
    case batchUpdate
    /// A `BatchDeleteRequest`.
    case batchDelete
    /// A `PersistentHistoryChangeRequest`.
    case historyChange
}

/// A request a context's store carries out on its rows directly, without managed objects: Core Data's
/// `NSPersistentStoreRequest`.
///
/// The batch requests (`BatchInsertRequest`, `BatchUpdateRequest`, `BatchDeleteRequest`) write in one store
/// transaction, run no validation rules, and leave the objects registered in contexts as they are: merge what they
/// changed with `ManagedObjectContext.mergeChanges(fromRemoteContextSave:into:)`.
public protocol PersistentStoreRequest {
    /// The kind of request.
    var requestType: PersistentStoreRequestType { get }
}
