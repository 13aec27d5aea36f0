extension ManagedObjectContext {
    // MARK: - Explaining

    /// How the store answers a fetch: the index it uses, the range read, whether the order comes from the
    /// index, and how many index entries and rows the fetch read (it runs the fetch in the store, without
    /// the context's unsaved changes). Like SQLite's `EXPLAIN QUERY PLAN`, for seeing why a fetch is fast or
    /// slow.
    ///
    /// For example:
    /// ```swift
    /// var request = FetchRequest<Pod>(entityName: "Pod")
    /// request.sortDescriptors = [SortKey("name")]
    /// request.fetchLimit = 50
    /// print(try context.explain(request))
    /// // SCAN Pod USING INDEX index/Pod/byName(name); ORDER FROM INDEX (1 sort key); STOPS AFTER 50 MATCHES; …
    /// ```
    /// - Throws: `ObjectStackError`: as `fetch(_:)` for a bad request; `.invalidArgument` when the store
    ///   cannot explain its plans (SQLite: use its `EXPLAIN QUERY PLAN`).
    public func explain<T: FetchRequestResult>(_ request: FetchRequest<T>) throws -> QueryPlan {
        assertOnQueue("explain(_:)")
        let aggregate = try AggregateFetchPlan(request: request, model: model, resultClass: T.self)
        let plan = aggregate == nil ? try FetchPlan(request: request, model: model, resultClass: T.self) : nil
        guard let coordinator = persistentStoreCoordinator else {
            throw ObjectStackError(
                code: .invalidArgument, message: "the context has no coordinator to explain a fetch with")
        }
        do {
            if let aggregate { return try coordinator.explain(aggregate.store) }
            return try coordinator.explain(plan!.store)
        } catch let error as StoreError {
            throw ObjectStackError(
                code: .storeFailed,
                message: "explaining a fetch of \(request.entityName ?? "\(T.self)") failed: \(error.message)",
                cause: error)
        }
    }
}
