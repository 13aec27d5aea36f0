import Foundation

/// What a `PersistentHistoryChangeRequest` returns: Core Data's `NSPersistentHistoryResultType`.
public enum PersistentHistoryResultType: Sendable, Hashable {
    /// `true`.
    case statusOnly
    /// The IDs of the changed objects, one per change.
    case objectIDs
    /// How many transactions were fetched or deleted.
    case count
    /// The transactions without their changes.
    case transactionsOnly
    /// The changes, without their transactions.
    case changesOnly
    /// The transactions with their changes (the default).
    case transactionsAndChanges
}

/// A request to read or delete persistent history: Core Data's `NSPersistentHistoryChangeRequest`.
///
/// For example:
/// ```swift
/// let request = PersistentHistoryChangeRequest.fetchHistory(after: lastToken)
/// var transactions = PersistentHistoryTransaction.fetchRequest
/// transactions.predicate = try FetchPredicate(format: "author != %@", "app")
/// request.fetchRequest = transactions
/// let result = try context.execute(request)
/// ```
/// History is read from the store the token belongs to, or from every store of the coordinator that keeps history
/// when no token is given. A token of a store the coordinator does not have is refused
/// (`ObjectStackError.invalidArgument`); a token whose transactions a purge deleted is refused with
/// `.persistentHistoryTokenExpired`.
/// - Note: Not thread-safe; build it on one thread and execute it on a context's queue.
public final class PersistentHistoryChangeRequest: PersistentStoreRequest {
    /// Where a request starts or ends.
    enum Boundary {
        case start
        case token(PersistentHistoryToken)
        case date(Date)
    }

    /// Read or delete.
    enum Operation {
        case fetch(after: Boundary)
        case delete(before: Boundary)
    }

    let operation: Operation
    /// What the result holds. Default `.transactionsAndChanges`.
    public var resultType: PersistentHistoryResultType = .transactionsAndChanges
    /// A fetch request on `PersistentHistoryTransaction.entityName` or `PersistentHistoryChange.entityName` whose
    /// predicate (and fetch limit) narrows a fetch: `author != %@`, `changeType == 2`, `changedEntity == "Pod"`.
    public var fetchRequest: FetchRequest<[String: Any]>?
    /// The token the request starts after (fetch) or deletes through (delete), if it was given one.
    public var token: PersistentHistoryToken? {
        switch operation {
        case .fetch(.token(let token)), .delete(.token(let token)): return token
        default: return nil
        }
    }

    public var requestType: PersistentStoreRequestType { .historyChange }

    init(_ operation: Operation) {
        self.operation = operation
    }

    // MARK: - Fetching

    /// The transactions after `token` (every transaction when nil), oldest first.
    public static func fetchHistory(after token: PersistentHistoryToken?) -> PersistentHistoryChangeRequest {
        PersistentHistoryChangeRequest(.fetch(after: token.map(Boundary.token) ?? .start))
    }

    /// The transactions written after `date`, oldest first.
    public static func fetchHistory(after date: Date) -> PersistentHistoryChangeRequest {
        PersistentHistoryChangeRequest(.fetch(after: .date(date)))
    }

    /// The transactions after `transaction` (every transaction when nil), oldest first.
    public static func fetchHistory(after transaction: PersistentHistoryTransaction?) -> PersistentHistoryChangeRequest
    {
        fetchHistory(after: transaction?.token)
    }

    /// Every transaction that `fetchRequest` (on transactions or changes) matches, oldest first.
    public static func fetchHistory(withFetchRequest fetchRequest: FetchRequest<[String: Any]>)
        -> PersistentHistoryChangeRequest
    {
        let request = PersistentHistoryChangeRequest(.fetch(after: .start))
        request.fetchRequest = fetchRequest
        return request
    }

    // MARK: - Deleting

    /// Deletes the transactions up to and including `token`'s (every transaction when nil). Later fetches after
    /// an earlier token throw `.persistentHistoryTokenExpired`.
    public static func deleteHistory(before token: PersistentHistoryToken?) -> PersistentHistoryChangeRequest {
        PersistentHistoryChangeRequest(.delete(before: token.map(Boundary.token) ?? .start))
    }

    /// Deletes the transactions written before `date`.
    public static func deleteHistory(before date: Date) -> PersistentHistoryChangeRequest {
        PersistentHistoryChangeRequest(.delete(before: .date(date)))
    }

    /// Deletes the transactions up to and including `transaction` (every transaction when nil).
    public static func deleteHistory(before transaction: PersistentHistoryTransaction?)
        -> PersistentHistoryChangeRequest
    {
        deleteHistory(before: transaction?.token)
    }
}
