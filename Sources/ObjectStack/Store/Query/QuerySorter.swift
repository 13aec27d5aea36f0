/// Orders a fetch's matches by its sort keys, ties by primary key, when no index gave the order: the sort the
/// LMDB and in-memory stores share.
///
/// It works on the matches' sort values and keys, concrete types, so it is compiled for them; the generic
/// `PredicateEvaluator.sorted`, called from another module, ran unspecialised (value-witness copies of each
/// tuple, a thunk per comparison) and took 95% of an LMDB first screen of 300 Moody continents sorted by an
/// unindexed column.
public enum QuerySorter {
    /// The stored field a sort key reads when it is one of the row's own attributes (what the evaluator would
    /// read for it), or nil when the key needs the evaluator (a relationship step, a variable).
    public static func storedIndex(of key: BoundSortKey) -> Int? {
        guard key.keyPath.variable == nil, key.keyPath.steps.count == 1,
            case .attribute(let attribute) = key.keyPath.steps[0]
        else { return nil }
        return attribute.storedIndex
    }

    /// The positions of the matches in result order: the first `limit` of them (all when `limit` is 0).
    /// - Parameters:
    ///   - sortValues: per match, its values of `keys`, in order.
    ///   - primaryKeys: per match, its primary key (ties).
    ///   - keys: the sort keys, bound to the entity.
    ///   - limit: how many positions to return; 0 for all.
    /// - Returns: the matches' positions in `sortValues`, in result order.
    /// - Complexity: O(n log n), or O(n log k) for a limit k under n / 2.
    public static func order(
        _ sortValues: [[StoreValue]], primaryKeys: [Int64], by keys: [BoundSortKey], limit: Int
    ) -> [Int] {
        // Sort keys and ties by primary key make a strict total order, so the top k are the sort's first k.
        func precedes(_ a: Int, _ b: Int) -> Bool {
            let order = ValueComparison.compareSortKeys(sortValues[a], sortValues[b], keys)
            return order == .orderedSame ? primaryKeys[a] < primaryKeys[b] : order == .orderedAscending
        }
        let count = sortValues.count
        guard limit > 0, limit < count / 2 else {
            let sorted = (0..<count).sorted(by: precedes)
            return limit > 0 ? Array(sorted.prefix(limit)) : sorted
        }
        var top = BoundedTopHeap<Int>(limit: limit)
        for position in 0..<count { top.offer(position, by: precedes) }
        return top.sorted(by: precedes)
    }
}
