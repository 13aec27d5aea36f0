/// A fetch as a store receives it: key paths already checked against the model.
public struct StoreFetchRequest: Sendable {
    /// What the store returns.
    public enum ResultType: Sendable {
        /// IDs with their rows (for objects; the coordinator caches the rows).
        case objects
        /// IDs only.
        case objectIDs
        /// One array of values per row, one value per key path, in order.
        case values([BoundKeyPath], distinct: Bool)
        /// The number of matching rows.
        case count
    }

    /// The entity fetched.
    public var entity: EntityDescription
    /// Whether rows of sub-entities match too.
    public var includesSubentities: Bool
    /// The filter, or nil for every row.
    public var predicate: BoundPredicate?
    /// The order; ties (and no sort keys) fall back to primary-key order.
    public var sortKeys: [BoundSortKey]
    /// The most rows to return; 0 for no limit.
    public var fetchLimit: Int
    /// Rows to skip first.
    public var fetchOffset: Int
    /// What to return.
    public var resultType: ResultType

    /// Creates a store fetch request.
    public init(
        entity: EntityDescription, includesSubentities: Bool = true, predicate: BoundPredicate? = nil,
        sortKeys: [BoundSortKey] = [], fetchLimit: Int = 0, fetchOffset: Int = 0, resultType: ResultType = .objects
    ) {
        self.entity = entity
        self.includesSubentities = includesSubentities
        self.predicate = predicate
        self.sortKeys = sortKeys
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
        self.resultType = resultType
    }

    /// How many rows of the sorted matches the result can use: offset plus limit, 0 when there is no limit
    /// (or it is too large to matter). A store may keep only these when sorting.
    public var sortLimit: Int {
        guard fetchLimit > 0 else { return 0 }
        let (sum, overflow) = max(fetchOffset, 0).addingReportingOverflow(fetchLimit)
        return overflow ? 0 : sum
    }

    /// The entities whose rows are candidates: the entity and, unless excluded, its descendants; never an
    /// abstract one (it has no rows of its own).
    public var candidateEntities: [EntityDescription] {
        (includesSubentities ? entity.selfAndDescendants : [entity]).filter { !$0.isAbstract }
    }
}

/// What a store returns for a fetch.
public enum StoreFetchResult: Sendable {
    case objects([(ManagedObjectID, RowSnapshot)])
    case objectIDs([ManagedObjectID])
    case values([[StoreValue]])
    case count(Int)
}
