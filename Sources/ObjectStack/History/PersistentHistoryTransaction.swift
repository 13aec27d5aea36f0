import Foundation

/// One save or batch request as persistent history recorded it: Core Data's `NSPersistentHistoryTransaction`.
///
/// For example:
/// ```swift
/// for transaction in result.transactions where transaction.author != "app" {
///     viewContext.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
/// }
/// ```
/// - Note: A value: safe to pass between threads and contexts.
public struct PersistentHistoryTransaction: Sendable, CustomStringConvertible {
    /// When the transaction was committed (the writer's clock).
    public let timestamp: Date
    /// The changes, in the order they were written; nil when the request asked for transactions only.
    public let changes: [PersistentHistoryChange]?
    /// The identifier of the store the transaction wrote.
    public let storeID: String
    /// The writing process's bundle identifier (on Linux, the executable's name).
    public let bundleID: String
    /// The writing process's ID.
    public let processID: String
    /// The name of the context that saved (`ManagedObjectContext.name`), nil for an unnamed one.
    public let contextName: String?
    /// The saving context's `transactionAuthor`, nil when it set none.
    public let author: String?
    /// The transaction's token: fetch history after it to see only what came later.
    public let token: PersistentHistoryToken
    /// The transaction's number in its store's history (numbers only grow).
    public var transactionNumber: Int64 { token.sequence }

    /// A notification that `ManagedObjectContext.mergeChanges(fromContextDidSave:)` merges: the IDs the transaction
    /// inserted, updated and deleted, as a did-save-object-IDs notification carries them.
    ///
    /// For example:
    /// ```swift
    /// context.perform { context.mergeChanges(fromContextDidSave: transaction.objectIDNotification()) }
    /// ```
    public func objectIDNotification() -> Notification {
        var inserted = Set<ManagedObjectID>()
        var updated = Set<ManagedObjectID>()
        var deleted = Set<ManagedObjectID>()
        for change in changes ?? [] {
            switch change.changeType {
            case .insert: inserted.insert(change.changedObjectID)
            case .update: updated.insert(change.changedObjectID)
            case .delete: deleted.insert(change.changedObjectID)
            }
        }
        // An object inserted and then changed in one transaction is an insert.
        updated.subtract(inserted)
        typealias Key = ManagedObjectContext.NotificationKey
        return Notification(
            name: ManagedObjectContext.didSaveObjectIDsNotification, object: nil,
            userInfo: [
                Key.insertedObjectIDs.rawValue: inserted, Key.updatedObjectIDs.rawValue: updated,
                Key.deletedObjectIDs.rawValue: deleted,
            ])
    }

    public var description: String {
        "transaction \(transactionNumber) at \(timestamp) by \(author ?? "nil") (\(contextName ?? "unnamed")), "
            + "\(changes?.count ?? 0) change(s)"
    }
}
