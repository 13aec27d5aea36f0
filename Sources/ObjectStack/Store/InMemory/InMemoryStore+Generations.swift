extension InMemoryStore: StoreGenerationPinning {
    // MARK: - Query generations

    /// A copy of the backing's state: its tables are persistent structures, so the copy costs nothing until later
    /// saves change a part of it (then only that part is copied).
    public func pinGeneration() throws -> any StoreGenerationReader {
        try checkOpen()
        return InMemoryGenerationReader(
            transaction: InMemoryBatchTransaction(store: self, state: backing.state.withLock { $0 }))
    }
}

/// Reads one generation of an in-memory store: a copy of its state, read the way a batch request reads its own.
final class InMemoryGenerationReader: StoreGenerationReader, @unchecked Sendable {
    // @unchecked: the transaction's state is never written after the copy is taken; every method only reads it.
    private let transaction: InMemoryBatchTransaction

    init(transaction: InMemoryBatchTransaction) {
        self.transaction = transaction
    }

    func execute(_ request: StoreFetchRequest) throws -> StoreFetchResult { try transaction.execute(request) }

    func snapshots(for objectIDs: [ManagedObjectID]) throws -> [RowSnapshot?] {
        try transaction.snapshots(for: objectIDs)
    }

    func relatedObjectIDs(of objectIDs: [ManagedObjectID], through relationship: RelationshipDescription) throws
        -> [[ManagedObjectID]]
    {
        try transaction.relatedObjectIDs(of: objectIDs, through: relationship)
    }
}
