import Foundation

/// Who writes a persistent history transaction: the saving context's author and name.
struct HistoryAuthor {
    let author: String?
    let contextName: String?
}

extension PersistentStoreCoordinator {
    // MARK: - Recording history

    /// The history record a save to `store` writes, nil when the store keeps no history.
    func historyRecord(
        for request: StoreSaveRequest, to store: any PersistentStore, by author: HistoryAuthor?,
        committedValues: (ManagedObjectID) -> [StoreValue]?
    ) -> StoreHistoryRecord? {
        guard let tracking = store as? any StoreHistoryStoring, tracking.tracksHistory else { return nil }
        var record = StoreHistoryRecord(author: author?.author, contextName: author?.contextName)
        record.appendChanges(of: request, committedValues: committedValues)
        return record
    }

    /// Runs a batch body so that, when the store keeps history, what it writes is recorded as one transaction in
    /// the same store transaction.
    func recordingHistory<T>(
        of store: any PersistentStore, by author: HistoryAuthor?,
        _ body: @escaping (any StoreBatchTransaction) throws -> T
    ) -> (any StoreBatchTransaction) throws -> T {
        guard let tracking = store as? any StoreHistoryStoring, tracking.tracksHistory else { return body }
        return { txn in
            let recorder = HistoryRecordingTransaction(
                base: txn, record: StoreHistoryRecord(author: author?.author, contextName: author?.contextName))
            let result = try body(recorder)
            if !recorder.record.changes.isEmpty { try txn.appendHistory(recorder.record) }
            return result
        }
    }

    // MARK: - Reading and deleting history

    /// Carries out a history request on the stores it concerns.
    func execute(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult {
        let stores = try historyStores(for: request.token)
        switch request.operation {
        case .delete(let boundary):
            var deleted = 0
            for store in stores {
                deleted += try withStoreAccess {
                    switch boundary {
                    case .start: return try store.deleteHistory(through: nil, before: nil)
                    case .token(let token): return try store.deleteHistory(through: token.sequence, before: nil)
                    case .date(let date): return try store.deleteHistory(through: nil, before: date)
                    }
                }
            }
            return PersistentHistoryResult(
                resultType: request.resultType == .count ? .count : .statusOnly, transactions: [], count: deleted)
        case .fetch(let boundary):
            let filter = try PersistentHistoryFilter(request.fetchRequest)
            let includingChanges = request.resultType != .transactionsOnly || filter?.subject == .change
            var transactions: [PersistentHistoryTransaction] = []
            for store in stores {
                let read: StoreHistoryRead
                switch boundary {
                case .start: read = try withStoreAccess { try store.historyTransactions(after: nil, since: nil) }
                case .date(let date):
                    read = try withStoreAccess { try store.historyTransactions(after: nil, since: date) }
                case .token(let token):
                    read = try withStoreAccess { try store.historyTransactions(after: token.sequence, since: nil) }
                    if token.sequence < read.purgedThrough {
                        throw ObjectStackError(
                            code: .persistentHistoryTokenExpired,
                            message: "the history after transaction \(token.sequence) of store \(store.identifier) "
                                + "was deleted (through transaction \(read.purgedThrough)); fetch from the start or "
                                + "from a date instead")
                    }
                }
                for (sequence, bytes) in read.transactions {
                    var transaction = try bytes.withUnsafeBytes {
                        try StoreHistoryRecord.decode(
                            $0, sequence: sequence, model: managedObjectModel, storeIdentifier: store.identifier,
                            includingChanges: includingChanges)
                    }
                    if let filter {
                        guard try filter.matches(transaction) else { continue }
                        if filter.subject == .change, let changes = transaction.changes {
                            let kept = try changes.filter { try filter.matches($0) }
                            guard !kept.isEmpty else { continue }
                            transaction = transaction.keeping(kept)
                        }
                    }
                    if request.resultType == .transactionsOnly, transaction.changes != nil {
                        transaction = transaction.keeping(nil)
                    }
                    transactions.append(transaction)
                    if let limit = filter?.limit, limit > 0, transactions.count >= limit { break }
                }
            }
            return PersistentHistoryResult(
                resultType: request.resultType, transactions: transactions, count: transactions.count)
        }
    }

    /// The stores a history request reads: the token's store, or every store that keeps history.
    private func historyStores(for token: PersistentHistoryToken?) throws -> [any StoreHistoryStoring] {
        let all = persistentStores
        guard let token else { return all.compactMap { $0 as? any StoreHistoryStoring } }
        guard let store = all.first(where: { $0.identifier == token.storeIdentifier }) else {
            throw ObjectStackError(
                code: .invalidArgument,
                message: "the history token belongs to store \(token.storeIdentifier), which is not one of this "
                    + "coordinator's stores (\(all.map(\.identifier).joined(separator: ", ")))")
        }
        guard let history = store as? any StoreHistoryStoring else {
            throw ObjectStackError(
                code: .invalidArgument, message: "the \(store.type) store at \(store.url) keeps no persistent history")
        }
        return [history]
    }

    /// The token of the last transaction in a store's history, nil when it has none.
    public func currentPersistentHistoryToken(fromStores stores: [any PersistentStore]? = nil)
        -> PersistentHistoryToken?
    {
        for store in (stores ?? persistentStores).reversed() {
            guard let history = store as? any StoreHistoryStoring,
                let sequence = try? withStoreAccess({ try history.lastHistorySequence() })
            else { continue }
            return PersistentHistoryToken(storeIdentifier: store.identifier, sequence: sequence)
        }
        return nil
    }
}

extension PersistentHistoryTransaction {
    /// The same transaction with other changes (a filtered fetch, or none for transactions only).
    func keeping(_ changes: [PersistentHistoryChange]?) -> PersistentHistoryTransaction {
        PersistentHistoryTransaction(
            timestamp: timestamp, changes: changes, storeID: storeID, bundleID: bundleID, processID: processID,
            contextName: contextName, author: author, token: token)
    }
}
