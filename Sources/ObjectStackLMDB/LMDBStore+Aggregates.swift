import CLMDB
import Foundation
import ObjectStack

extension LMDBStore: StoreAggregating {
    // MARK: - Aggregate fetches

    /// Runs an aggregate fetch in one read transaction: counts from the entry count or an index range, `min:`
    /// and `max:` from the ends of an index (one row read each), anything else grouped from the matching rows'
    /// values.
    /// - Complexity: O(1) or an index range for counts; O(log n) per indexed `min:`/`max:`; otherwise the
    ///   dictionary fetch of the values and O(n) to group them.
    public func execute(_ request: StoreAggregateRequest) throws -> [[StoreValue]] {
        try checkOpen()
        return try runAggregate(request).0
    }

    /// Runs an aggregate fetch and returns the plan: the count fetch's (`COUNT FROM INDEX`), the index read for
    /// `min:`/`max:` (`MIN/MAX FROM INDEX`), or the values fetch's.
    public func explain(_ request: StoreAggregateRequest) throws -> QueryPlan? {
        try checkOpen()
        return try runAggregate(request).1
    }

    private func runAggregate(_ request: StoreAggregateRequest) throws -> ([[StoreValue]], QueryPlan) {
        try environment.read { txn in
            let resolver = LMDBResolver(txn: txn, schema: schema, codec: codec)
            var plan = QueryPlan(entityName: request.entity.name, access: .scan)
            func fetch(_ fetchRequest: StoreFetchRequest) throws -> StoreFetchResult {
                let (result, fetchPlan) = try LMDBFetch(request: fetchRequest, resolver: resolver).run()
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
            if let layout = schema.layout(of: request.entity), layout.ownsAllRows,
                request.candidateEntities.count == 1,
                let extremes = AggregateEvaluation.extremeIndexes(
                    for: request, indexes: layout.queryIndexes.map(\.index))
            {
                var row: [StoreValue] = []
                for (column, (index, maximum)) in zip(request.columns, extremes) {
                    guard let dbi = layout.queryIndexes.first(where: { $0.index.name == index.name })?.dbi,
                        let attribute = column.keyPath.finalAttribute, let field = attribute.storedIndex
                    else {
                        throw StoreError(
                            code: .corrupt, message: "the store has no sub-database for \(index.name)", url: url)
                    }
                    plan.access = .index(index, .all)
                    guard
                        let value = try extreme(
                            of: attribute, field: field, maximum: maximum, walking: index, dbi: dbi, rows: layout.rows,
                            txn: txn, plan: &plan)
                    else { break }
                    row.append(value)
                }
                if row.count == request.columns.count {
                    plan.aggregatesFromIndex = true
                    return (try AggregateEvaluation.finish(request, groups: [row]), plan)
                }
            }
            return (try AggregateEvaluation.run(request, fetch: fetch), plan)
        }
    }

    /// The smallest or largest value of an attribute that is not nil: the row of the index's first entry past
    /// the nils (which sort first), or of its last entry. Nil when that entry's key was cut (a long string),
    /// so entries with the same cut key may hold a larger value: the caller reads the rows instead.
    private func extreme(
        of attribute: AttributeDescription, field: Int, maximum: Bool, walking index: QueryIndex, dbi: MDB_dbi,
        rows: MDB_dbi, txn: LMDBTransaction, plan: inout QueryPlan
    ) throws -> StoreValue? {
        let range: QueryKeyRange
        if maximum {
            range = .all
        } else {
            // From the smallest value of the attribute's kind to the last of that kind: the nils are skipped
            // by the seek, not read.
            guard let smallest = Self.smallestValue(of: attribute.type) else { return .null }
            range = .range(lower: smallest, lowerInclusive: true, upper: nil, upperInclusive: true)
        }
        let walk = LMDBIndexWalk(index: index, dbi: dbi, range: range, codec: codec)
        let nilKind = LMDBKeyCodec.kindByte(of: .null)
        var found: Int64?
        var complete = true
        var entries = 0
        try walk.walk(txn, descending: maximum) { primaryKey, values in
            entries += 1
            if values.first != nilKind {
                found = primaryKey
                complete = walk.orderingPrefix(values, columns: 1).complete
            }
            return false
        }
        plan.entriesRead += entries
        guard complete else { return nil }
        guard let found, let bytes = try txn.get(rows, primaryKey: found) else { return .null }
        plan.rowsRead += 1
        return try codec.decodeField(field, of: bytes, header: try codec.header(of: bytes))
    }

    /// The first value of a type in index order, so a walk can start there instead of at the nils.
    private static func smallestValue(of type: AttributeType) -> StoreValue? {
        switch type {
        case .integer16, .integer32, .integer64: return .integer(.min)
        case .double, .float: return .double(-.infinity)
        case .date: return .date(Date(timeIntervalSinceReferenceDate: -.infinity))
        case .boolean: return .boolean(false)
        case .string: return .string("")
        case .uuid: return .uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        default: return nil
        }
    }
}
