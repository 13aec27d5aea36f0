extension PredicateEvaluator {
    /// Sorts matching rows by sort keys (each key read once per row), ties in primary-key order: the order
    /// every store returns.
    /// - Complexity: O(m log m) for m rows.
    public func sorted(_ rows: [Row], by keys: [BoundSortKey], primaryKey: (Row) -> Int64) throws -> [Row] {
        guard !keys.isEmpty else { return rows }
        let keyed = try rows.map { row in (row, try keys.map { try value(of: $0.keyPath, on: row) }) }
        return keyed.sorted { a, b in
            let order = ValueComparison.compareSortKeys(a.1, b.1, keys)
            return order == .orderedSame ? primaryKey(a.0) < primaryKey(b.0) : order == .orderedAscending
        }.map(\.0)
    }

    /// A store fetch's result from its sorted matches: offset and limit applied, in the request's result type.
    public func result(
        of request: StoreFetchRequest, matches: [Row], objectID: (Row) -> ManagedObjectID,
        snapshot: (Row) throws -> RowSnapshot
    ) throws -> StoreFetchResult {
        if case .count = request.resultType, request.fetchOffset == 0, request.fetchLimit == 0 {
            return .count(matches.count)
        }
        let window = matches.dropFirst(request.fetchOffset).prefix(request.fetchLimit > 0 ? request.fetchLimit : Int.max)
        switch request.resultType {
        case .count:
            return .count(window.count)
        case .objectIDs:
            return .objectIDs(window.map(objectID))
        case .objects:
            return .objects(try window.map { (objectID($0), try snapshot($0)) })
        case .values(let paths, let distinct):
            var rows: [[StoreValue]] = []
            var seen: Set<[StoreValue]> = []
            for row in window {
                let values = try paths.map { try value(of: $0, on: row) }
                if distinct, !seen.insert(values).inserted { continue }
                rows.append(values)
            }
            return .values(rows)
        }
    }
}
