/// An aggregate fetch as a store receives it: the matching rows grouped by key paths, aggregates computed
/// per group, the groups filtered, ordered and windowed; one row of values per group.
///
/// The columns are the request's properties to fetch, in order. A row of columns is also what `having` and
/// `sortKeys` read: they are bound to `columnEntity`, whose attribute `i` is column `i` (named as in the result
/// dictionaries), so every store filters and orders groups with the predicate and sort semantics it already has.
/// Without grouping the result is one row, even over no matching object (counts 0, sums 0, the rest nil).
public struct StoreAggregateRequest: Sendable {
    /// One result column.
    public enum Column: Sendable {
        /// A group-by key: the value of a key path, the same for every object of the group.
        case key(BoundKeyPath)
        /// An aggregate over a key path's values in the group, as `AggregateAccumulator` computes it.
        case aggregate(AggregateFunction, BoundKeyPath)

        /// The key path the column reads from each object.
        public var keyPath: BoundKeyPath {
            switch self {
            case .key(let path), .aggregate(_, let path): return path
            }
        }
    }

    /// The entity fetched.
    public var entity: EntityDescription
    /// Whether rows of sub-entities match too.
    public var includesSubentities: Bool
    /// Which objects are aggregated, or nil for all.
    public var predicate: BoundPredicate?
    /// The result columns.
    public var columns: [Column]
    /// The key columns that group the objects, by column index, in grouping order; empty for one group of
    /// every matching object.
    public var groupBy: [Int]
    /// An entity whose attribute `i` stands for column `i`: what `having` and `sortKeys` are bound to.
    public var columnEntity: EntityDescription
    /// Which groups are returned (SQL's `HAVING`), over a row of columns.
    public var having: BoundPredicate?
    /// The order of the groups, over a row of columns; ties (and every request) end in ascending order of the
    /// group-by keys, so the order is the same on every store.
    public var sortKeys: [BoundSortKey]
    /// The most groups to return; 0 for no limit.
    public var fetchLimit: Int
    /// Groups to skip first.
    public var fetchOffset: Int

    /// Creates a request.
    public init(
        entity: EntityDescription, includesSubentities: Bool = true, predicate: BoundPredicate? = nil,
        columns: [Column], groupBy: [Int], columnEntity: EntityDescription, having: BoundPredicate? = nil,
        sortKeys: [BoundSortKey] = [], fetchLimit: Int = 0, fetchOffset: Int = 0
    ) {
        self.entity = entity
        self.includesSubentities = includesSubentities
        self.predicate = predicate
        self.columns = columns
        self.groupBy = groupBy
        self.columnEntity = columnEntity
        self.having = having
        self.sortKeys = sortKeys
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
    }

    /// The sort keys a store applies: the request's, then each group-by key ascending.
    public var orderingKeys: [BoundSortKey] {
        let attributes = columnEntity.attributes
        return sortKeys
            + groupBy.map {
                BoundSortKey(
                    keyPath: BoundKeyPath(variable: nil, steps: [.attribute(attributes[$0])]), ascending: true,
                    caseInsensitive: false)
            }
    }

    /// The entities whose rows are candidates, as `StoreFetchRequest.candidateEntities`.
    public var candidateEntities: [EntityDescription] {
        (includesSubentities ? entity.selfAndDescendants : [entity]).filter { !$0.isAbstract }
    }
}

/// A store that computes aggregate fetches itself (in SQL, or from its indexes). The coordinator computes a
/// store's aggregates from a dictionary fetch of the values when the store is not one.
public protocol StoreAggregating: StoreReader {
    /// Runs an aggregate fetch: one row of column values per group, in order.
    func execute(_ request: StoreAggregateRequest) throws -> [[StoreValue]]

    /// Runs an aggregate fetch and returns the plan it used (nil for a store that does not explain its plans).
    func explain(_ request: StoreAggregateRequest) throws -> QueryPlan?
}
