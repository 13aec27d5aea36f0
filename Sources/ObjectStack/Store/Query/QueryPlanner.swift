/// Chooses a `QueryPlan` for a fetch from the indexes a store offers: the planner the LMDB and in-memory
/// stores share, so both read the same predicates the same way.
///
/// It reads the top-level conjuncts of the predicate and recognises, on a key path of one step:
/// `=`, `IN` (a list), `<`, `<=`, `>`, `>=`, `BETWEEN` and `BEGINSWITH` on an attribute that leads an index;
/// `=` and `IN` on `SELF` (primary keys) and on a to-one relationship (its referrer index). A comparison with
/// `[c]`/`[d]`, a constant of another kind than the attribute's stored one, or any other node is not
/// indexable and is left to the evaluation of the predicate on each candidate.
///
/// Choice, in order: primary-key seeks; seeks of equal values (`=`/`IN`) on an index; an index whose leading
/// columns are the leading sort keys (all in one direction), with a range on its first column if the
/// predicate has one, when the fetch has a limit or no other index applies; a range; a scan.
public enum QueryPlanner {
    /// The plan for a request over the given indexes (those the store has for the entity).
    /// - Complexity: O(c · i) for c conjuncts and i indexes.
    public static func plan(for request: StoreFetchRequest, indexes: [QueryIndex]) -> QueryPlan {
        var plan = QueryPlan(entityName: request.entity.name, access: .scan)
        let parts = conjuncts(of: request.predicate)
        let conditions = parts.compactMap(condition(for:))
        // A predicate of one recognised, option-free comparison is decided by the range alone.
        let onlyCondition = parts.count == 1 && conditions.count == 1 && conditions[0].isExact ? conditions[0] : nil

        if request.predicate == nil { plan.isExact = true }
        if let keys = conditions.lazy.compactMap(\.primaryKeys).first {
            plan.access = .primaryKeys(keys)
            plan.isExact = onlyCondition?.primaryKeys != nil
            return plan
        }

        var bestSeek: (index: QueryIndex, condition: Condition, score: Int)?
        for index in indexes {
            for condition in conditions where condition.target.matches(index.columns[0]) && condition.fits(index) {
                let score = condition.score(on: index)
                if score > (bestSeek?.score ?? 0) { bestSeek = (index, condition, score) }
            }
        }
        let order = orderingIndex(for: request.sortKeys, among: indexes)
        if let order, bestSeek.map({ $0.score < Condition.seekScore }) ?? true {
            let onOrder = conditions.filter { $0.target.matches(order.index.columns[0]) && $0.fits(order.index) }
                .max { $0.score(on: order.index) < $1.score(on: order.index) }
            // Without a limit, a range on another index reads fewer rows than a walk of this whole one.
            if onOrder != nil || request.sortLimit > 0 || bestSeek == nil {
                plan.access = .index(order.index, onOrder?.range ?? .all)
                plan.orderedSortKeys = order.keys
                plan.isDescending = !request.sortKeys[0].ascending
                plan.stopsAfter = request.sortLimit
                plan.isExact = request.predicate == nil || onOrder.map { onlyCondition === $0 } == true
                return plan
            }
        }
        if let bestSeek {
            plan.access = .index(bestSeek.index, bestSeek.condition.range)
            plan.isExact = onlyCondition.map { $0 === bestSeek.condition } == true
            return plan
        }
        if request.sortKeys.isEmpty { plan.stopsAfter = request.sortLimit }
        return plan
    }

    /// The index whose leading columns are the most leading sort keys (case-sensitive, one direction).
    private static func orderingIndex(for keys: [BoundSortKey], among indexes: [QueryIndex]) -> (
        index: QueryIndex, keys: Int
    )? {
        guard let first = keys.first else { return nil }
        var best: (index: QueryIndex, keys: Int)?
        for index in indexes where index.isComplete && index.kind != .reference {
            var served = 0
            while served < min(keys.count, index.columns.count) {
                let key = keys[served]
                guard key.ascending == first.ascending, !key.caseInsensitive, key.keyPath.variable == nil,
                    key.keyPath.steps.count == 1, case .attribute(let attribute) = key.keyPath.steps[0],
                    isOrderable(attribute.type), Target.attribute(attribute).matches(index.columns[served])
                else { break }
                served += 1
            }
            if served > (best?.keys ?? 0) || served > 0 && served == best?.keys && index.kind == .index {
                best = (index, served)
            }
        }
        return best
    }

    /// The top-level conjuncts of a predicate (nested `AND`s flattened).
    private static func conjuncts(of predicate: BoundPredicate?) -> [BoundPredicate] {
        guard let predicate else { return [] }
        if case .and(let parts) = predicate { return parts.flatMap { conjuncts(of: $0) } }
        return [predicate]
    }

    /// Attribute types whose stored values every store orders as `ValueComparison.sortOrder` does.
    static func isOrderable(_ type: AttributeType) -> Bool {
        switch type {
        case .integer16, .integer32, .integer64, .double, .float, .boolean, .string, .date, .uuid: return true
        default: return false
        }
    }

    /// A constant as the attribute's stored kind, or nil when an index cannot look it up.
    static func keyValue(_ value: StoreValue, for attribute: AttributeDescription) -> StoreValue? {
        switch (attribute.type, value) {
        case (.integer16, .integer), (.integer32, .integer), (.integer64, .integer): return value
        case (.double, .double), (.float, .double): return value
        case (.double, .integer(let v)), (.float, .integer(let v)): return .double(Double(v))
        case (.string, .string), (.date, .date), (.boolean, .boolean), (.uuid, .uuid): return value
        default: return nil
        }
    }

    /// What a comparison is about.
    enum Target {
        case primaryKey
        case attribute(AttributeDescription)
        case toOne(RelationshipDescription)

        func matches(_ column: QueryIndex.Column) -> Bool {
            switch (self, column) {
            case (.attribute(let a), .attribute(let b)): return a.name == b.name && a.storedIndex == b.storedIndex
            case (.toOne(let a), .toOne(let b)): return a.storageKey == b.storageKey
            default: return false
            }
        }
    }

    /// A recognised comparison: its target and the range of the target it allows.
    final class Condition {
        static let uniqueSeekScore = 90
        static let seekScore = 80

        let target: Target
        let range: QueryKeyRange
        /// Whether rows in the range are exactly the rows the comparison matches.
        let isExact: Bool
        let primaryKeys: [Int64]?

        init(target: Target, range: QueryKeyRange, isExact: Bool, primaryKeys: [Int64]? = nil) {
            self.target = target
            self.range = range
            self.isExact = isExact
            self.primaryKeys = primaryKeys
        }

        /// Whether the index holds every row the range can match: an index without an entry for some rows
        /// (a uniqueness constraint skips nil values) cannot look up nil.
        func fits(_ index: QueryIndex) -> Bool {
            guard !index.isComplete, case .values(let values) = range else { return true }
            return !values.contains { $0.isNull }
        }

        /// How selective reading the range on `index` is expected to be.
        func score(on index: QueryIndex) -> Int {
            switch range {
            case .values:
                return index.kind == .unique && index.columns.count == 1 ? Self.uniqueSeekScore : Self.seekScore
            case .prefix: return 50
            case .range(let lower, _, let upper, _): return lower != nil && upper != nil ? 50 : 40
            case .all: return 1
            }
        }
    }

    /// The condition a conjunct states on an indexable target, or nil.
    private static func condition(for predicate: BoundPredicate) -> Condition? {
        guard case .comparison(let comparison) = predicate, comparison.quantifier == .direct,
            comparison.options.subtracting(.normalized).isEmpty,
            case .keyPath(let path) = comparison.lhs, path.variable == nil
        else { return nil }
        let constants: [StoreValue]
        if case .constant(let value) = comparison.rhs {
            constants = [value]
        } else if case .list(let values) = comparison.rhs {
            constants = values
        } else {
            return nil
        }
        let isList: Bool
        if case .list = comparison.rhs { isList = true } else { isList = false }
        let exact = comparison.options.isEmpty

        if path.steps.isEmpty {
            guard comparison.op == .equal && !isList || comparison.op == .in && isList else { return nil }
            var keys: [Int64] = []
            for case .objectID(let id) in constants where !id.isTemporaryID { keys.append(id.key) }
            keys = Array(Set(keys)).sorted()
            // Only object IDs can match SELF; anything else in the list matches nothing.
            return Condition(target: .primaryKey, range: .all, isExact: false, primaryKeys: keys)
        }
        guard path.steps.count == 1 else { return nil }
        if case .toOne(let relationship) = path.steps[0] {
            guard comparison.op == .equal && !isList || comparison.op == .in && isList else { return nil }
            var values: [StoreValue] = []
            for value in constants {
                guard case .objectID(let id) = value, !id.isTemporaryID else { return nil }
                values.append(value)
            }
            values.sort { ValueComparison.sortOrder($0, $1, caseInsensitive: false) == .orderedAscending }
            return Condition(target: .toOne(relationship), range: .values(unique(values)), isExact: false)
        }
        guard case .attribute(let attribute) = path.steps[0], isOrderable(attribute.type), attribute.storedIndex != nil
        else { return nil }
        let target = Target.attribute(attribute)
        switch (comparison.op, isList) {
        case (.equal, false):
            if constants[0].isNull { return Condition(target: target, range: .values([.null]), isExact: exact) }
            guard let value = keyValue(constants[0], for: attribute) else { return nil }
            return Condition(target: target, range: .values([value]), isExact: exact)
        case (.in, true):
            var values: [StoreValue] = []
            for constant in constants {
                // An unconvertible constant makes the list unusable.
                if constant.isNull {
                    values.append(.null)
                    continue
                }
                guard let value = keyValue(constant, for: attribute) else { return nil }
                values.append(value)
            }
            values.sort { ValueComparison.sortOrder($0, $1, caseInsensitive: false) == .orderedAscending }
            return Condition(target: target, range: .values(unique(values)), isExact: exact)
        case (.lessThan, false), (.lessThanOrEqual, false):
            guard let value = keyValue(constants[0], for: attribute) else { return nil }
            return Condition(
                target: target,
                range: .range(
                    lower: nil, lowerInclusive: true, upper: value,
                    upperInclusive: comparison.op == .lessThanOrEqual), isExact: exact)
        case (.greaterThan, false), (.greaterThanOrEqual, false):
            guard let value = keyValue(constants[0], for: attribute) else { return nil }
            return Condition(
                target: target,
                range: .range(
                    lower: value,
                    lowerInclusive: comparison.op == .greaterThanOrEqual, upper: nil, upperInclusive: true),
                isExact: exact)
        case (.between, true) where constants.count == 2:
            guard let low = keyValue(constants[0], for: attribute), let high = keyValue(constants[1], for: attribute)
            else { return nil }
            return Condition(
                target: target,
                range: .range(
                    lower: low, lowerInclusive: true, upper: high,
                    upperInclusive: true), isExact: exact)
        case (.beginsWith, false):
            guard attribute.type == .string, case .string(let prefix) = constants[0] else { return nil }
            return Condition(target: target, range: .prefix(prefix), isExact: exact)
        default:
            return nil
        }
    }

    private static func unique(_ sorted: [StoreValue]) -> [StoreValue] {
        var result: [StoreValue] = []
        for value in sorted
        where result.last.map({ ValueComparison.sortOrder($0, value, caseInsensitive: false) != .orderedSame }) ?? true
        {
            result.append(value)
        }
        return result
    }
}
