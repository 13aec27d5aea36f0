import Foundation

/// One fetch over a copy of an in-memory backing's state, run as `QueryPlanner` plans it.
///
/// The same plan shapes as the LMDB store's: primary-key seeks, an ordered index walked over a range (forwards
/// or backwards, stopping after offset+limit matches and their ties when it gives the order), or the rows in
/// primary-key order. The predicate is evaluated on every candidate unless the range alone decides it.
struct InMemoryFetch {
    let request: StoreFetchRequest
    let resolver: InMemoryResolver
    let indexes: [QueryIndex]

    /// Runs the fetch.
    /// - Complexity: O(n) for a scan; about offset+limit rows for an ordered walk with a limit; O(k log n)
    ///   for k candidates from an index; plus O(m log m) to sort m matches the index did not order.
    func run() throws -> (StoreFetchResult, QueryPlan) {
        let entity = request.entity
        let table = resolver.state.tables[entity.rootEntity.name] ?? InMemoryBacking.Table()
        var plan = QueryPlanner.plan(for: request, indexes: indexes)
        let candidates = request.candidateEntities
        let onlyCandidates =
            candidates.count == 1
            && entity.rootEntity.selfAndDescendants.allSatisfy { $0 === entity || $0.isAbstract }
        let candidateNames = Set(candidates.map(\.name))
        let single = candidates.count == 1 ? candidates[0] : nil
        let evaluator = PredicateEvaluator(resolver: resolver)
        let predicate = plan.isExact ? nil : request.predicate
        // Plain attribute tests are read straight from the row's values, without the general evaluator.
        let filter = predicate.flatMap(QueryFilter.init)
        let isCount: Bool
        if case .count = request.resultType { isCount = true } else { isCount = false }
        // A count without offset or limit needs only the number of matches, not the rows.
        let countsOnly = isCount && request.fetchOffset == 0 && request.fetchLimit == 0
        var counted = 0
        var matches: [InMemoryResolver.Row] = []
        var rowsRead = 0
        func consider(_ key: Int64, _ row: InMemoryBacking.Row) throws -> Bool {
            rowsRead += 1
            if let filter {
                guard Self.matches(filter, row.values) else { return false }
            }
            let rowEntity: EntityDescription
            if let single, onlyCandidates || row.entityName == single.name {
                rowEntity = single
            } else {
                guard candidateNames.contains(row.entityName), let found = resolver.entities[row.entityName] else {
                    return false
                }
                rowEntity = found
            }
            let candidate = InMemoryResolver.Row(entity: rowEntity, key: key, snapshot: row.snapshot)
            if filter == nil, let predicate, try !evaluator.evaluate(predicate, on: candidate) { return false }
            if countsOnly {
                counted += 1
                return true
            }
            matches.append(candidate)
            return true
        }

        var sortedByIndex = request.sortKeys.isEmpty
        switch plan.access {
        case .scan:
            if isCount, plan.isExact, onlyCandidates {
                plan.countsFromIndex = true
                plan.entriesRead = table.rows.count
                return (windowedCount(table.rows.count), plan)
            }
            if countsOnly, let filter {
                // The count of a scan in one tight loop over the chunks: no row kept or wrapped.
                var count = 0
                for chunk in table.rows.chunks {
                    chunk.withUnsafeBufferPointer { entries in
                        for entry in entries.indices {
                            guard Self.matches(filter, entries[entry].row.values) else { continue }
                            if onlyCandidates || candidateNames.contains(entries[entry].row.entityName) { count += 1 }
                        }
                    }
                }
                plan.rowsRead = table.rows.count
                return (.count(count), plan)
            }
            let stop = plan.stopsAfter
            try table.rows.forEach(from: table.rows.partitionPoint { _ in true }) { entry in
                _ = try consider(entry.key, entry.row)
                return stop == 0 || matches.count < stop
            }
        case .primaryKeys(let keys):
            for key in keys {
                if let row = table.row(key) { _ = try consider(key, row) }
            }
        case .index(let index, let range):
            var entries = 0
            if index.kind == .reference {
                guard case .toOne(let relationship) = index.columns[0], case .values(let values) = range else { break }
                var keys: Set<Int64> = []
                let referrers = table.referrers[InMemorySave.relationshipKey(relationship)]
                for case .objectID(let target) in values { keys.formUnion(referrers?[target] ?? []) }
                entries = keys.count
                for key in keys.sorted() {
                    if let row = table.row(key) { _ = try consider(key, row) }
                }
            } else {
                let ordered = table.indexes[index.name] ?? ChunkedSortedArray()
                let segments: [QueryKeyRange]
                if case .values(let values) = range {
                    segments = values.map { .values([$0]) }
                } else {
                    segments = [range]
                }
                if plan.orderedSortKeys > 0 {
                    let stop = plan.stopsAfter
                    let columns = plan.orderedSortKeys
                    // An ascending walk of an index whose columns are exactly the sort keys meets ties in
                    // primary-key order, the result's: it stops at the last match wanted, without reading the rows
                    // that tie with it (all of them when the first screen sorts by a column that is mostly nil).
                    let exactOrder =
                        !plan.isDescending && columns == request.sortKeys.count && columns == index.columns.count
                    var lastGroup: ArraySlice<StoreValue>?
                    func sameGroup(_ a: ArraySlice<StoreValue>, _ b: ArraySlice<StoreValue>) -> Bool {
                        zip(a, b).allSatisfy {
                            ValueComparison.sortOrder($0, $1, caseInsensitive: false) == .orderedSame
                        }
                    }
                    walk: for segment in plan.isDescending ? segments.reversed() : segments {
                        var more = true
                        let visit = { (entry: InMemoryBacking.IndexEntry) throws -> Bool in
                            entries += 1
                            let group = entry.values.prefix(columns)
                            if stop > 0, matches.count >= stop, let last = lastGroup, !sameGroup(group, last) {
                                more = false
                                return false
                            }
                            guard let row = table.row(entry.key) else { return true }
                            if try consider(entry.key, row), stop > 0, matches.count == stop {
                                if exactOrder {
                                    more = false
                                    return false
                                }
                                lastGroup = group
                            }
                            return true
                        }
                        try Self.walk(ordered, segment, descending: plan.isDescending, visit)
                        if !more { break walk }
                    }
                    sortedByIndex = exactOrder
                } else if isCount, plan.isExact, onlyCandidates {
                    plan.countsFromIndex = true
                    var count = 0
                    for segment in segments {
                        try Self.walk(ordered, segment, descending: false) { _ in
                            count += 1
                            return true
                        }
                    }
                    plan.entriesRead = count
                    return (windowedCount(count), plan)
                } else {
                    var keys: [Int64] = []
                    for segment in segments {
                        try Self.walk(ordered, segment, descending: false) { entry in
                            keys.append(entry.key)
                            return true
                        }
                    }
                    entries = keys.count
                    keys.sort()
                    var previous: Int64?
                    for key in keys where key != previous {
                        previous = key
                        if let row = table.row(key) { _ = try consider(key, row) }
                    }
                }
            }
            plan.entriesRead = entries
        }
        plan.rowsRead = rowsRead
        if countsOnly { return (.count(counted), plan) }
        if !sortedByIndex {
            let keys = request.sortKeys
            // A key on one of the row's own attributes is its value, read directly, not through the evaluator.
            let fields = keys.map { QuerySorter.storedIndex(of: $0) }
            let values = try matches.map { row in
                try keys.indices.map { position in
                    if let field = fields[position] {
                        return row.snapshot.value(at: field)
                    }
                    return try evaluator.value(of: keys[position].keyPath, on: row)
                }
            }
            matches = QuerySorter.order(values, primaryKeys: matches.map(\.key), by: keys, limit: request.sortLimit)
                .map { matches[$0] }
        }
        let window = matches.dropFirst(request.fetchOffset).prefix(
            request.fetchLimit > 0 ? request.fetchLimit : Int.max)
        // Objects and IDs are built here, on concrete types, not by the evaluator's generic `result`.
        switch request.resultType {
        case .objects:
            return (.objects(window.map { (resolver.objectID(of: $0), $0.snapshot) }), plan)
        case .objectIDs:
            return (.objectIDs(window.map { resolver.objectID(of: $0) }), plan)
        case .count, .values:
            break
        }
        let result = try evaluator.result(of: request, matches: matches, objectID: resolver.objectID(of:)) {
            $0.snapshot
        }
        return (result, plan)
    }

    /// Whether a row's values pass a filter; integer fields are compared in place, not copied out.
    @inline(__always)
    private static func matches(_ filter: QueryFilter, _ values: [StoreValue]) -> Bool {
        filter.matches(
            integer: { field in
                guard field < values.count, case .integer(let value) = values[field] else { return nil }
                return value
            },
            value: { $0 < values.count ? values[$0] : .null })
    }

    /// A count of `total` matches after the request's offset and limit.
    private func windowedCount(_ total: Int) -> StoreFetchResult {
        let afterOffset = max(total - request.fetchOffset, 0)
        return .count(request.fetchLimit > 0 ? min(afterOffset, request.fetchLimit) : afterOffset)
    }

    /// Visits the entries whose first value lies in the range (one value for `.values`), in order or
    /// backwards, until `body` returns false.
    private static func walk(
        _ index: ChunkedSortedArray<InMemoryBacking.IndexEntry>, _ range: QueryKeyRange, descending: Bool,
        _ body: (InMemoryBacking.IndexEntry) throws -> Bool
    ) throws {
        func order(_ a: StoreValue, _ b: StoreValue) -> ComparisonResult {
            ValueComparison.sortOrder(a, b, caseInsensitive: false)
        }
        // Below and above are monotone along the index: every entry below the range precedes every entry in it.
        let below: (StoreValue) -> Bool
        let above: (StoreValue) -> Bool
        switch range {
        case .all:
            below = { _ in false }
            above = { _ in false }
        case .values(let values):
            let value = values[0]
            below = { order($0, value) == .orderedAscending }
            above = { order($0, value) == .orderedDescending }
        case .range(let lower, let lowerInclusive, let upper, let upperInclusive):
            below = { value in
                if value.isNull { return true }
                guard let lower else { return false }
                let result = order(value, lower)
                return result == .orderedAscending || result == .orderedSame && !lowerInclusive
            }
            above = { value in
                guard let upper else {
                    // Values of a later kind (the column holds one kind) are past an open range.
                    return false
                }
                let result = order(value, upper)
                return result == .orderedDescending || result == .orderedSame && !upperInclusive
            }
        case .prefix(let prefix):
            let start = StoreValue.string(prefix)
            below = { order($0, start) == .orderedAscending }
            above = { value in
                if order(value, start) == .orderedAscending { return false }
                guard case .string(let text) = value else { return true }
                return !text.utf8.starts(with: prefix.utf8)
            }
        }
        if descending {
            let end = index.partitionPoint { above($0.values[0]) }
            try index.forEachBackwards(before: end) { entry in
                if below(entry.values[0]) { return false }
                return try body(entry)
            }
        } else {
            let start = index.partitionPoint { !below($0.values[0]) }
            try index.forEach(from: start) { entry in
                if above(entry.values[0]) { return false }
                return try body(entry)
            }
        }
    }
}
