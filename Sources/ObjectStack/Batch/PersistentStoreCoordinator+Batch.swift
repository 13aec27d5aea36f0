extension PersistentStoreCoordinator {
    // MARK: - Batch requests

    /// Runs a batch request's body in one write transaction of the store that holds `entity`, under the
    /// coordinator's lock, then brings the row cache up to date: a cached row the request updated is replaced (its
    /// holders kept), a deleted one dropped, so no context reads a stale row from the cache afterwards.
    /// - Throws: `StoreError` from the store (`.unsupported` for a store that runs no batch requests), or the body's
    ///   error; either way nothing was written.
    func executeBatch(
        for entity: EntityDescription, rowsHint: Int, author: HistoryAuthor? = nil,
        _ body: @escaping (any StoreBatchTransaction) throws -> BatchChanges
    ) throws -> BatchChanges {
        let store = try store(for: entity)
        guard let batchStore = store as? any StoreBatchWriting else {
            throw StoreError(
                code: .unsupported, message: "the \(store.type) store does not run batch requests", url: store.url)
        }
        defer { didWrite(to: store) }
        return try withStoreAccess {
            let changes = try batchStore.performBatch(
                rowsHint: rowsHint, recordingHistory(of: store, by: author, body))
            if !changes.updated.isEmpty || !changes.deleted.isEmpty {
                rowCache.withLock { cache in
                    let now = RowCacheInstant.now
                    for (id, row) in changes.updated { cache.refresh(row, for: id, at: now) }
                    for id in changes.deleted { cache.remove(id) }
                }
            }
            return changes
        }
    }
}
