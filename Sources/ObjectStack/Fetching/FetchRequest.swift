/// What a fetch returns: objects, object IDs, dictionaries of values, or a count.
public enum FetchResultType: Sendable, Hashable {
    case managedObject
    case managedObjectID
    case dictionary
    case count
}

/// A type a fetch request can return: a managed object class, `ManagedObjectID`, or `[String: Any]`.
public protocol FetchRequestResult {
    /// The result type a request of this type asks for.
    static var fetchResultType: FetchResultType { get }
}

extension ManagedObject: FetchRequestResult {
    public static var fetchResultType: FetchResultType { .managedObject }
}

extension ManagedObjectID: FetchRequestResult {
    public static var fetchResultType: FetchResultType { .managedObjectID }
}

extension Dictionary: FetchRequestResult where Key == String, Value == Any {
    public static var fetchResultType: FetchResultType { .dictionary }
}

/// A description of what to fetch: the entity, a filter, an order and limits.
///
/// For example:
/// ```swift
/// var request = FetchRequest<Book>(entityName: "Book")
/// request.predicate = try FetchPredicate(format: "pages > %d", 300)
/// request.sortDescriptors = [SortKey("title")]
/// request.fetchLimit = 20
/// let books = try context.fetch(request)
/// ```
public struct FetchRequest<Result: FetchRequestResult>: Sendable {
    /// The entity fetched; nil to use the entity whose class is `Result`.
    public var entityName: String?
    /// The filter, or nil for every object.
    public var predicate: FetchPredicate?
    /// The order; see `SortKey` for how values compare.
    public var sortDescriptors: [SortKey] = []
    /// The most results to return; 0 for no limit.
    public var fetchLimit = 0
    /// Results to skip first.
    public var fetchOffset = 0
    /// How many rows to read at a time; 0 reads all at once.
    public var fetchBatchSize = 0
    /// What the fetch returns; follows `Result` unless set.
    public var resultType: FetchResultType
    /// For dictionary results: the attribute names and to-one key paths to read (nil: every attribute), and
    /// `ExpressionDescription`s — key paths under another name, or aggregates (`count:`, `sum:`, `min:`, `max:`,
    /// `average:`) computed over the matching objects or, with `propertiesToGroupBy`, over each group.
    public var propertiesToFetch: [any FetchPropertyConvertible]?
    /// For dictionary results: the key paths (or key-path expression descriptions) whose values group the
    /// objects, one result per group, as SQL's `GROUP BY`. Each must also be in `propertiesToFetch`, and every
    /// other property fetched must be an aggregate. Groups come in ascending order of their keys after the
    /// sort keys, which may name the group-by key paths and the expression descriptions.
    public var propertiesToGroupBy: [any FetchPropertyConvertible]?
    /// For grouped results: which groups to return, as SQL's `HAVING`. It names an expression description as
    /// a variable, `$name` (Core Data's `NSExpression(forVariable:)`), and a group-by key by its key path:
    /// `"$books > 1 AND author.name BEGINSWITH 'L'"`. Needs `propertiesToGroupBy`.
    public var havingPredicate: FetchPredicate?
    /// Relationship key paths whose destinations are read along with the results.
    public var relationshipKeyPathsForPrefetching: [String] = []
    /// Whether fetched objects are faults (their values read on first access). Default true.
    public var returnsObjectsAsFaults = true
    /// Whether the context's unsaved inserts, updates and deletes show in the results. Default true;
    /// dictionary results reflect the store only, as in Core Data.
    public var includesPendingChanges = true
    /// Whether objects of sub-entities match too. Default true.
    public var includesSubentities = true
    /// For dictionary results: whether equal rows are returned once.
    public var returnsDistinctResults = false

    /// Creates a request for an entity.
    public init(entityName: String) {
        self.entityName = entityName
        self.resultType = Result.fetchResultType
    }

    /// Creates a request for the entity whose class is `Result`.
    public init() where Result: ManagedObject {
        self.entityName = nil
        self.resultType = .managedObject
    }
}
