/// What a `PersistentHistoryChangeRequest` returns: Core Data's `NSPersistentHistoryResult`.
///
/// `result` holds what the request's `resultType` asks for; the typed properties give the same without a cast.
public final class PersistentHistoryResult: PersistentStoreResult {
    /// The request's result type.
    public let resultType: PersistentHistoryResultType
    /// `true`, `[ManagedObjectID]`, a count, `[PersistentHistoryTransaction]` or `[PersistentHistoryChange]`, as
    /// `resultType` asks.
    public let result: Any?
    /// The transactions fetched (with their changes unless the result type is `.transactionsOnly`); empty for a
    /// delete and for the other result types.
    public let transactions: [PersistentHistoryTransaction]
    /// How many transactions were fetched or deleted.
    public let count: Int

    init(resultType: PersistentHistoryResultType, transactions: [PersistentHistoryTransaction], count: Int) {
        self.resultType = resultType
        self.count = count
        switch resultType {
        case .statusOnly:
            result = true
            self.transactions = []
        case .count:
            result = count
            self.transactions = []
        case .objectIDs:
            result = transactions.flatMap { ($0.changes ?? []).map(\.changedObjectID) }
            self.transactions = []
        case .changesOnly:
            result = transactions.flatMap { $0.changes ?? [] }
            self.transactions = []
        case .transactionsOnly, .transactionsAndChanges:
            result = transactions
            self.transactions = transactions
        }
        super.init(changes: nil)
    }

    /// The changes fetched, for `.changesOnly` (and flattened from the transactions for the transaction types).
    public var historyChanges: [PersistentHistoryChange] {
        (result as? [PersistentHistoryChange]) ?? transactions.flatMap { $0.changes ?? [] }
    }
}
