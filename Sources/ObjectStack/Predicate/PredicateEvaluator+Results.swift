extension PredicateEvaluator {
    /// Sorts matching rows by sort keys (each key read once per row), ties in primary-key order: the order
    /// every store returns. With `limit` (offset plus fetch limit; 0 for none) only the first `limit` rows of
    /// that order are returned, kept in a `BoundedTopHeap` instead of sorting every match.
    /// - Complexity: O(m log m) for m rows; O(m log k) with a limit k.
    public func sorted(_ rows: [Row], by keys: [BoundSortKey], limit: Int = 0, primaryKey: (Row) -> Int64) throws
        -> [Row]
    {
        guard !keys.isEmpty else { return limit > 0 ? Array(rows.prefix(limit)) : rows }
        // Sort keys and ties by primary key make a strict total order, so the top k are the sort's first k.
        func precedes(_ a: (Row, [StoreValue]), _ b: (Row, [StoreValue])) -> Bool {
            let order = ValueComparison.compareSortKeys(a.1, b.1, keys)
            return order == .orderedSame ? primaryKey(a.0) < primaryKey(b.0) : order == .orderedAscending
        }
        guard limit > 0, limit < rows.count / 2 else {
            let keyed = try rows.map { row in (row, try keys.map { try value(of: $0.keyPath, on: row) }) }
            return keyed.sorted(by: precedes).prefix(limit > 0 ? limit : Int.max).map(\.0)
        }
        var top = BoundedTopHeap<(Row, [StoreValue])>(limit: limit)
        for row in rows { top.offer((row, try keys.map { try value(of: $0.keyPath, on: row) }), by: precedes) }
        return top.sorted(by: precedes).map(\.0)
    }

    /// A store fetch's result from its sorted matches: offset and limit applied, in the request's result type.
    public func result(
        of request: StoreFetchRequest, matches: [Row], objectID: (Row) -> ManagedObjectID,
        snapshot: (Row) throws -> RowSnapshot
    ) throws -> StoreFetchResult {
        if case .count = request.resultType, request.fetchOffset == 0, request.fetchLimit == 0 {
            return .count(matches.count)
        }
        let window = matches.dropFirst(request.fetchOffset).prefix(
            request.fetchLimit > 0 ? request.fetchLimit : Int.max)
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
