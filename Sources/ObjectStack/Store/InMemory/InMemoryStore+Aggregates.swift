import Foundation

extension InMemoryStore: StoreAggregating {
    // MARK: - Aggregate fetches

    /// Runs an aggregate fetch over one copy of the state: counts from the row count or an index range, `min:`
    /// and `max:` from the ends of an index, anything else grouped from the matching rows' values.
    /// - Complexity: O(1) or an index range for counts; O(log n) per indexed `min:`/`max:`; otherwise the
    ///   dictionary fetch of the values and O(n) to group them.
    public func execute(_ request: StoreAggregateRequest) throws -> [[StoreValue]] {
        try runAggregate(request).0
    }

    /// Runs an aggregate fetch and returns the plan: the count fetch's (`COUNT FROM INDEX`), the index read for
    /// `min:`/`max:` (`MIN/MAX FROM INDEX`), or the values fetch's.
    public func explain(_ request: StoreAggregateRequest) throws -> QueryPlan? {
        try runAggregate(request).1
    }

    private func runAggregate(_ request: StoreAggregateRequest) throws -> ([[StoreValue]], QueryPlan) {
        try checkOpen()
        let state = backing.state.withLock { $0 }
        let resolver = InMemoryResolver(state: state, entities: entities, storeIdentifier: identifier)
        let indexes = queryIndexes[request.entity.name] ?? []
        var plan = QueryPlan(entityName: request.entity.name, access: .scan)
        func fetch(_ fetchRequest: StoreFetchRequest) throws -> StoreFetchResult {
            let (result, fetchPlan) = try InMemoryFetch(request: fetchRequest, resolver: resolver, indexes: indexes)
                .run()
            plan = fetchPlan
            return result
        }
        if let counts = AggregateEvaluation.countRequests(for: request) {
            var row: [StoreValue] = []
            for countRequest in counts {
                guard case .count(let count) = try fetch(countRequest) else { return ([], plan) }
                row.append(.integer(Int64(count)))
            }
            return (try AggregateEvaluation.finish(request, groups: [row]), plan)
        }
        let entity = request.entity
        let onlyCandidates =
            request.candidateEntities.count == 1
            && entity.rootEntity.selfAndDescendants.allSatisfy { $0 === entity || $0.isAbstract }
        if onlyCandidates, let extremes = AggregateEvaluation.extremeIndexes(for: request, indexes: indexes) {
            let table = state.tables[entity.rootEntity.name] ?? InMemoryBacking.Table()
            var row: [StoreValue] = []
            plan.aggregatesFromIndex = true
            for (index, maximum) in extremes {
                plan.access = .index(index, .all)
                let ordered = table.indexes[index.name] ?? ChunkedSortedArray()
                // Nil sorts first: the smallest value is the first entry past the nils, the largest the last entry.
                var value = StoreValue.null
                if maximum {
                    ordered.forEachBackwards(before: ordered.end) { entry in
                        plan.entriesRead += 1
                        value = entry.values[0]
                        return false
                    }
                } else {
                    let start = ordered.partitionPoint { !$0.values[0].isNull }
                    ordered.forEach(from: start) { entry in
                        plan.entriesRead += 1
                        value = entry.values[0]
                        return false
                    }
                }
                row.append(value)
            }
            return (try AggregateEvaluation.finish(request, groups: [row]), plan)
        }
        let rows = try AggregateEvaluation.run(request, fetch: fetch)
        return (rows, plan)
    }
}
