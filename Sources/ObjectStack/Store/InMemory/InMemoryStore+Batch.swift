extension InMemoryStore: StoreBatchWriting {
    // MARK: - Batch requests

    /// Runs `body` on a copy of the backing's state under its lock and puts the copy in place when it returns:
    /// readers see the request's writes all at once, or none of them when it throws.
    public func performBatch<T>(rowsHint: Int, _ body: (any StoreBatchTransaction) throws -> T) throws -> T {
        try checkOpen()
        return try backing.state.withLock { state in
            let transaction = InMemoryBatchTransaction(store: self, state: state)
            let result = try body(transaction)
            state = transaction.state
            backing.writeCount.withLock { $0 &+= 1 }
            return result
        }
    }
}

/// A batch request's transaction on an in-memory backing: a copy of its state that the request reads and changes
/// (its tables are persistent structures, so the copy shares every part the request does not change).
/// - Note: Not thread-safe; used inside `performBatch`, under the backing's lock.
final class InMemoryBatchTransaction: StoreBatchTransaction {
    private let store: InMemoryStore
    /// The state as the request has changed it so far.
    fileprivate(set) var state: InMemoryBacking.State

    init(store: InMemoryStore, state: InMemoryBacking.State) {
        self.store = store
        self.state = state
    }

    var storeIdentifier: String { store.identifier }

    private var resolver: InMemoryResolver {
        InMemoryResolver(state: state, entities: store.entities, storeIdentifier: store.identifier)
    }

    func execute(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        try InMemoryFetch(request: request, resolver: resolver, indexes: store.queryIndexes[request.entity.name] ?? [])
            .run().0
    }

    func snapshots(for objectIDs: [ManagedObjectID]) throws -> [RowSnapshot?] {
        objectIDs.map { InMemoryStore.snapshot(of: $0, in: state) }
    }

    func relatedObjectIDs(of objectIDs: [ManagedObjectID], through relationship: RelationshipDescription) throws
        -> [[ManagedObjectID]]
    {
        let resolver = resolver
        return objectIDs.map { resolver.related($0, through: relationship) }
    }

    func owner(ofUniqueValues values: [StoreValue], declaring: EntityDescription, attributes: [AttributeDescription])
        throws -> ManagedObjectID?
    {
        let table = state.tables[declaring.rootEntity.name]
        guard let key = table?.unique[InMemorySave.constraintKey(declaring, attributes)]?[values],
            let row = table?.row(key), let entity = store.entities[row.entityName]
        else { return nil }
        return ManagedObjectID(entity: entity, storeIdentifier: store.identifier, primaryKey: key)
    }

    func reserveKeys(for entity: EntityDescription, count: Int) throws -> Int64 {
        let root = entity.rootEntity.name
        let first = state.tables[root, default: InMemoryBacking.Table()].lastKey + 1
        state.tables[root, default: InMemoryBacking.Table()].lastKey += Int64(count)
        return first
    }

    func insert(_ rows: StoreBatchRows) throws {
        var request = StoreSaveRequest()
        request.inserts.reserveCapacity(rows.count)
        for row in 0..<rows.count {
            request.inserts.append((rows.objectID(ofRow: row, storeIdentifier: store.identifier), Array(rows[row])))
        }
        _ = try save(request)
    }

    func save(_ request: StoreSaveRequest) throws -> [ManagedObjectID: Int64] {
        let save = InMemorySave(request: request, url: store.url, orderedIndexes: store.orderedIndexes)
        try save.validate(against: state)
        let versions = save.apply(to: &state)
        if let record = request.history { try appendHistory(record) }
        return versions
    }

    func appendHistory(_ record: StoreHistoryRecord) throws {
        if store.tracksHistory { state.history.append(record) }
    }
}
