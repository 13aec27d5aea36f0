/// How a store answers one fetch: where its candidates come from, whether an index gives their order, and
/// (after the fetch ran) how many index entries and rows it read — what `EXPLAIN QUERY PLAN` shows for SQLite.
///
/// For example:
/// ```swift
/// let plan = try context.explain(request)
/// print(plan)   // SEARCH Pod USING INDEX index/Pod/byName(name) (all); ORDER FROM INDEX (1 of 1 sort keys)…
/// ```
/// Whatever the plan, the whole predicate is evaluated on every candidate row unless `isExact` says the index
/// range alone decides it, so results are those of a full scan.
public struct QueryPlan: Sendable, CustomStringConvertible {
    /// Where the candidates come from.
    public enum Access: Sendable {
        /// Every row of the entity's hierarchy, in primary-key order.
        case scan
        /// The rows with these primary keys (`SELF == %@`, `SELF IN %@`), ascending.
        case primaryKeys([Int64])
        /// The entries of an index whose first column lies in a range.
        case index(QueryIndex, QueryKeyRange)
    }

    /// The entity fetched.
    public var entityName: String
    /// Where the candidates come from.
    public var access: Access
    /// How many leading sort keys the index order serves (0: the store sorts the matches itself).
    public var orderedSortKeys: Int = 0
    /// Whether the index is walked backwards (descending sort keys).
    public var isDescending = false
    /// The matches after which reading stops (offset plus limit, and rows tying with the last), or 0 when every
    /// candidate is read: set when the candidates arrive in the result's order.
    public var stopsAfter = 0
    /// Whether the index range alone decides the predicate (no other condition, no options), so a count needs
    /// no row.
    public var isExact = false
    /// Whether a count is answered from index entries without reading rows.
    public var countsFromIndex = false
    /// Whether an aggregate fetch's `min:`/`max:` are read from the ends of an index (a row per value).
    public var aggregatesFromIndex = false
    /// Index entries read by the fetch (filled in when it ran).
    public var entriesRead = 0
    /// Rows read (and decoded at least in part) by the fetch (filled in when it ran).
    public var rowsRead = 0

    /// Creates a plan.
    public init(entityName: String, access: Access) {
        self.entityName = entityName
        self.access = access
    }

    /// The index used, if any.
    public var index: QueryIndex? {
        if case .index(let index, _) = access { return index }
        return nil
    }

    /// Whether the index supplies the order of the first sort key.
    public var orderFromIndex: Bool { orderedSortKeys > 0 }

    public var description: String {
        var parts: [String] = []
        switch access {
        case .scan:
            parts.append("SCAN \(entityName)")
        case .primaryKeys(let keys):
            parts.append(
                "SEARCH \(entityName) USING PRIMARY KEY (\(keys.count == 1 ? "= \(keys[0])" : "IN \(keys.count) keys"))"
            )
        case .index(let index, let range):
            if case .all = range {
                parts.append("SCAN \(entityName) USING INDEX \(index)")
            } else {
                parts.append("SEARCH \(entityName) USING INDEX \(index) (\(index.columns[0].name) \(range))")
            }
        }
        if orderedSortKeys > 0 {
            parts.append(
                "ORDER FROM INDEX (\(orderedSortKeys) sort key\(orderedSortKeys == 1 ? "" : "s")\(isDescending ? ", descending" : ""))"
            )
        }
        if stopsAfter > 0 { parts.append("STOPS AFTER \(stopsAfter) MATCHES") }
        if countsFromIndex { parts.append("COUNT FROM INDEX") } else if isExact { parts.append("RANGE IS EXACT") }
        if aggregatesFromIndex { parts.append("MIN/MAX FROM INDEX") }
        parts.append("entries read: \(entriesRead), rows read: \(rowsRead)")
        return parts.joined(separator: "; ")
    }
}
