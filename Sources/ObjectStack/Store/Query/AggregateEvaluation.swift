import Foundation

/// Aggregate fetches computed in Swift from the values of the matching rows: what the LMDB and in-memory
/// stores run (beside what they serve from indexes), and what the coordinator runs for a store that is not
/// `StoreAggregating`. SQLite runs the same semantics in SQL.
public enum AggregateEvaluation {
    /// Computes an aggregate fetch from one dictionary fetch of the key paths its columns read.
    /// - Parameters:
    ///   - request: the aggregate fetch: its entity, predicate, columns, grouping, having predicate and order.
    ///   - fetch: runs a store fetch (in the caller's transaction or snapshot).
    /// - Returns: one row of column values per group (one when ungrouped), filtered, ordered and windowed as asked.
    /// - Complexity: the dictionary fetch, then O(n) to group n rows and O(g log g) to order g groups.
    public static func run(
        _ request: StoreAggregateRequest, fetch: (StoreFetchRequest) throws -> StoreFetchResult
    ) throws -> [[StoreValue]] {
        var paths: [BoundKeyPath] = []
        var positions: [String: Int] = [:]
        let valueIndex = request.columns.map { column -> Int in
            let key = column.keyPath.description
            if let position = positions[key] { return position }
            positions[key] = paths.count
            paths.append(column.keyPath)
            return paths.count - 1
        }
        let valuesRequest = StoreFetchRequest(
            entity: request.entity, includesSubentities: request.includesSubentities, predicate: request.predicate,
            resultType: .values(paths, distinct: false))
        guard case .values(let rows) = try fetch(valuesRequest) else { return try finish(request, groups: []) }
        return try aggregate(request, rows: rows.lazy.map { row in valueIndex.map { row[$0] } })
    }

    /// Groups rows of column values (each row holds, per column, the value its key path read) and computes the
    /// aggregates, then applies `finish`.
    public static func aggregate<Rows: Sequence<[StoreValue]>>(_ request: StoreAggregateRequest, rows: Rows) throws
        -> [[StoreValue]]
    {
        let fresh = request.columns.map { column -> AggregateAccumulator? in
            guard case .aggregate(let function, let path) = column else { return nil }
            return AggregateAccumulator(function, argumentType: path.finalAttribute?.type)
        }
        if request.groupBy.isEmpty {
            var accumulators = fresh
            for row in rows {
                for index in accumulators.indices { accumulators[index]?.add(row[index]) }
            }
            return try finish(request, groups: [accumulators.map { $0?.result ?? .null }])
        }
        var groups: [GroupKey: Int] = [:]
        var keys: [[StoreValue]] = []
        var accumulators: [[AggregateAccumulator?]] = []
        for row in rows {
            let key = request.groupBy.map { row[$0] }
            let position: Int
            if let found = groups[GroupKey(values: key)] {
                position = found
            } else {
                position = keys.count
                groups[GroupKey(values: key)] = position
                keys.append(key)
                accumulators.append(fresh)
            }
            for index in fresh.indices where fresh[index] != nil { accumulators[position][index]?.add(row[index]) }
        }
        let rowsOut = keys.indices.map { position in
            var values = accumulators[position].map { $0?.result ?? .null }
            for (slot, column) in request.groupBy.enumerated() { values[column] = keys[position][slot] }
            return values
        }
        return try finish(request, groups: rowsOut)
    }

    /// Applies `having`, the order and the window to computed groups (rows of column values).
    /// - Complexity: O(g) for the predicate, O(g log k) to keep the first k = offset+limit groups in order.
    public static func finish(_ request: StoreAggregateRequest, groups: [[StoreValue]]) throws -> [[StoreValue]] {
        let evaluator = PredicateEvaluator(resolver: ColumnResolver(entity: request.columnEntity))
        var rows = groups.enumerated().map { ColumnRow(position: $0.offset, values: $0.element) }
        if let having = request.having {
            rows = try rows.filter { try evaluator.evaluate(having, on: $0) }
        }
        let limit = request.fetchLimit > 0 ? request.fetchOffset + request.fetchLimit : 0
        let ordered = try evaluator.sorted(rows, by: request.orderingKeys, limit: limit) { Int64($0.position) }
        return ordered.dropFirst(request.fetchOffset).prefix(request.fetchLimit > 0 ? request.fetchLimit : Int.max)
            .map(\.values)
    }

    /// A group's key values, hashed so that keys equal as values (decimals `1.1` and `1.10`) meet: the
    /// equality of SQL's `GROUP BY` with the store's collations.
    struct GroupKey: Hashable {
        let values: [StoreValue]

        static func == (lhs: GroupKey, rhs: GroupKey) -> Bool {
            zip(lhs.values, rhs.values).allSatisfy {
                ValueComparison.sortOrder($0, $1, caseInsensitive: false) == .orderedSame
            }
        }

        func hash(into hasher: inout Hasher) {
            for value in values {
                if case .decimal(var decimal) = value {
                    var compact = decimal
                    NSDecimalCompact(&compact)
                    decimal = compact
                    hasher.combine(decimal.description)
                } else {
                    hasher.combine(value)
                }
            }
        }
    }
}

/// A row of result columns, with its position among the groups (the last tie-breaker, never reached).
struct ColumnRow {
    let position: Int
    let values: [StoreValue]
}

/// Reads result columns as the attributes of a `StoreAggregateRequest`'s column entity.
struct ColumnResolver: PredicateResolver {
    let entity: EntityDescription

    func row(for objectID: ManagedObjectID) throws -> ColumnRow? { nil }

    func objectID(of row: ColumnRow) -> ManagedObjectID {
        // Bound column predicates and sort keys name attributes only, never SELF; a stand-in for completeness.
        ManagedObjectID(entity: entity, storeIdentifier: "", primaryKey: Int64(row.position))
    }

    func value(of attribute: AttributeDescription, in row: ColumnRow) throws -> StoreValue {
        attribute.index < row.values.count ? row.values[attribute.index] : .null
    }

    func destination(of relationship: RelationshipDescription, in row: ColumnRow) throws -> ManagedObjectID? { nil }

    func destinations(of relationship: RelationshipDescription, in row: ColumnRow) throws -> [ManagedObjectID] { [] }
}

extension AggregateEvaluation {
    // MARK: - What indexes answer

    /// For a request whose every column is a `count:` (no grouping), the count fetch answering each column: the
    /// request's predicate, and the key path not nil unless it is a required attribute of the entity. A store
    /// answers these from its indexes when the predicate allows (without any predicate, from the row count).
    public static func countRequests(for request: StoreAggregateRequest) -> [StoreFetchRequest]? {
        guard request.groupBy.isEmpty, request.having == nil else { return nil }
        var requests: [StoreFetchRequest] = []
        for column in request.columns {
            guard case .aggregate(.count, let path) = column else { return nil }
            var predicate = request.predicate
            let required = path.steps.count == 1 && path.finalAttribute.map { !$0.isOptional } == true
            if !required {
                let present = BoundPredicate.comparison(
                    BoundComparison(
                        quantifier: .direct, lhs: .keyPath(path), op: .notEqual, rhs: .constant(.null), options: [],
                        regex: nil))
                predicate = predicate.map { .and([$0, present]) } ?? present
            }
            requests.append(
                StoreFetchRequest(
                    entity: request.entity, includesSubentities: request.includesSubentities, predicate: predicate,
                    resultType: .count))
        }
        return requests
    }

    /// For a request whose every column is a `min:` or `max:` of an attribute of the entity that leads one of
    /// `indexes` (no predicate, no grouping): per column, the index whose first or last value (not nil) answers
    /// it. The store checks that the index holds only candidate rows.
    public static func extremeIndexes(for request: StoreAggregateRequest, indexes: [QueryIndex]) -> [(
        index: QueryIndex, maximum: Bool
    )]? {
        guard request.groupBy.isEmpty, request.having == nil, request.predicate == nil else { return nil }
        var answers: [(index: QueryIndex, maximum: Bool)] = []
        for column in request.columns {
            guard case .aggregate(let function, let path) = column, function == .min || function == .max,
                path.variable == nil, path.steps.count == 1, case .attribute(let attribute) = path.steps[0],
                QueryPlanner.isOrderable(attribute.type),
                let index = indexes.first(where: { index in
                    index.kind != .reference && QueryPlanner.Target.attribute(attribute).matches(index.columns[0])
                })
            else { return nil }
            answers.append((index, function == .max))
        }
        return answers
    }
}
