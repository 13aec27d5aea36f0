import Foundation

extension ManagedObjectContext {
    // MARK: - Aggregate fetches

    /// Runs an aggregate fetch (see `FetchRequest.propertiesToGroupBy`): its dictionaries, one per group.
    ///
    /// As every dictionary fetch in Core Data, it reads the store: the context's unsaved changes (and a parent
    /// context's) are not counted.
    func fetchAggregates<T>(_ plan: AggregateFetchPlan) throws -> [T] {
        let rows = plan.dictionaries(try aggregateRows(plan))
        guard let typed = rows as? [T] else {
            throw ObjectStackError.typeMismatch("an aggregate fetch returns [String: Any] dictionaries, not \(T.self)")
        }
        return typed
    }

    /// The rows of an aggregate fetch, from the store.
    func aggregateRows(_ plan: AggregateFetchPlan) throws -> [[StoreValue]] {
        processPendingChanges()
        do {
            return try coordinator.execute(plan.store)
        } catch let error as StoreError {
            throw ObjectStackError(
                code: .storeFailed, message: "aggregate fetch of \(plan.store.entity.name) failed: \(error.message)",
                cause: error)
        }
    }
}

extension FetchPlan {
    /// The dictionary keys and key paths of a dictionary fetch's properties: a key path under its own name, a
    /// key-path expression description under its name.
    static func keyPathProperties(_ properties: [FetchProperty]) throws -> [(key: String, keyPath: String)] {
        try properties.map { property in
            switch property {
            case .keyPath(let path):
                return (path, path)
            case .expression(let description):
                guard case .keyPath(let path) = description.expression else {
                    throw ObjectStackError(
                        code: .invalidArgument,
                        message:
                            "expression description '\(description.name)' (\(description.expression)) is an aggregate: it needs a dictionary fetch"
                    )
                }
                return (description.name, path)
            }
        }
    }
}

extension PersistentStoreCoordinator {
    /// Runs an aggregate fetch on the entity's store: the store computes it if it can (`StoreAggregating`),
    /// else the coordinator computes it from a dictionary fetch of the values.
    func execute(_ request: StoreAggregateRequest) throws -> [[StoreValue]] {
        let store = try store(for: request.entity)
        return try withStoreAccess {
            if let aggregating = store as? any StoreAggregating { return try aggregating.execute(request) }
            return try AggregateEvaluation.run(request) { try store.execute($0) }
        }
    }

    /// The plan the entity's store uses for an aggregate fetch, with what it read.
    func explain(_ request: StoreAggregateRequest) throws -> QueryPlan {
        let store = try store(for: request.entity)
        let plan = try withStoreAccess { try (store as? any StoreAggregating)?.explain(request) }
        guard let plan else {
            throw ObjectStackError(
                code: .invalidArgument,
                message: "the \(store.type) store does not explain its aggregate plans (SQLite: use EXPLAIN QUERY PLAN)"
            )
        }
        return plan
    }
}
