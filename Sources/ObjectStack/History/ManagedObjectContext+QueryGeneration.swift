extension ManagedObjectContext {
    // MARK: - Query generations

    /// The generation the context's reads are pinned to, nil when it reads the stores' latest data: Core Data's
    /// `queryGenerationToken`.
    public var queryGenerationToken: QueryGenerationToken? {
        assertOnQueue("queryGenerationToken")
        return queryGenerationStorage?.token
    }

    /// Pins the context's fetches and faults to one generation of its stores, or (nil) unpins them: Core Data's
    /// `setQueryGenerationFrom(_:)`.
    ///
    /// `.current` pins the stores as they are now; another context's `queryGenerationToken` shares its generation.
    /// A pinned context sees nothing written later (by itself elsewhere, other contexts, coordinators or processes)
    /// until it saves, resets, refreshes all objects or merges a save (`mergeChanges(fromContextDidSave:)`), which
    /// move it to the then current generation.
    ///
    /// For example:
    /// ```swift
    /// try context.setQueryGenerationFrom(.current)
    /// ```
    /// - Note: Call it on the context's queue, on a context with a coordinator (a child reads through its parent).
    ///   A pinned generation holds a reader on the store (SQLite: a read transaction on a connection of its own;
    ///   LMDB: a read transaction), so the store file cannot reuse the space later writes free while it is held:
    ///   unpin when done. An LMDB generation ends if this process must grow the store's map.
    /// - Throws: `ObjectStackError`: `.queryGenerationUnavailable` for a token whose generation no context holds
    ///   any more, `.invalidArgument` for a token of another coordinator's stores or a child context.
    public func setQueryGenerationFrom(_ token: QueryGenerationToken?) throws {
        assertOnQueue("setQueryGenerationFrom(_:)")
        guard let token else {
            queryGenerationStorage = nil
            return
        }
        guard parentStorage == nil, let coordinator = coordinatorStorage else {
            throw ObjectStackError(
                code: .invalidArgument,
                message: "only a context with a coordinator pins a query generation; a child reads its parent's")
        }
        if token.isCurrent {
            queryGenerationStorage = try QueryGeneration(pinning: coordinator)
            return
        }
        guard let generation = token.heldGeneration else {
            throw ObjectStackError(
                code: .queryGenerationUnavailable,
                message: "the token's query generation is no longer held by any context; set .current instead")
        }
        guard generation.coordinatorID == ObjectIdentifier(coordinator) else {
            throw ObjectStackError(
                code: .invalidArgument,
                message: "the query generation token belongs to another coordinator's stores, not this context's")
        }
        queryGenerationStorage = generation
    }

    /// Moves a pinned context to the stores' current generation (when it saves, resets, refreshes everything or
    /// merges a save).
    func advanceQueryGeneration() {
        guard queryGenerationStorage != nil, let coordinator = coordinatorStorage else { return }
        queryGenerationStorage = try? QueryGeneration(pinning: coordinator)
    }

    /// The pinned reader of the store holding `id`'s object.
    func generationReader(for storeIdentifier: String) throws -> (any StoreGenerationReader)? {
        try queryGenerationStorage?.reader(for: storeIdentifier)
    }
}
