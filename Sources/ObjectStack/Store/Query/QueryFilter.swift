/// A predicate made only of `attribute op constant` tests (`=`, `!=`, `<`, `<=`, `>`, `>=`, no options),
/// joined by `AND`: what a store can check on a row by reading the attributes' fields directly, without the
/// general evaluator. The tests mean what `PredicateEvaluator` means by them (`ValueComparison`).
///
/// For example, `downloads > 524288` is one test on the `downloads` field; a predicate with anything else
/// (a key path through a relationship, `IN`, `[c]`, a node this type does not know) gives no filter.
public struct QueryFilter: Sendable {
    /// One test: the field (stored index) compared with a constant.
    public struct Test: Sendable {
        public let field: Int
        public let op: PredicateOperator
        public let constant: StoreValue
        /// The constant when it is an integer: a row's integer field is compared with it as two `Int64`s,
        /// without copying the field out as a `StoreValue` (the count of a scan spends most of its time there).
        public let integerConstant: Int64?

        init(field: Int, op: PredicateOperator, constant: StoreValue) {
            self.field = field
            self.op = op
            self.constant = constant
            if case .integer(let value) = constant { integerConstant = value } else { integerConstant = nil }
        }
    }

    /// The tests, all of which must hold.
    public let tests: [Test]

    /// The filter of a predicate, or nil when it is not made only of such tests.
    public init?(_ predicate: BoundPredicate) {
        var tests: [Test] = []
        func gather(_ predicate: BoundPredicate) -> Bool {
            if case .and(let parts) = predicate { return parts.allSatisfy(gather) }
            guard case .comparison(let comparison) = predicate, comparison.quantifier == .direct,
                comparison.options.isEmpty, case .keyPath(let path) = comparison.lhs, path.variable == nil,
                path.steps.count == 1, case .attribute(let attribute) = path.steps[0],
                let field = attribute.storedIndex, case .constant(let constant) = comparison.rhs
            else { return false }
            switch comparison.op {
            case .equal, .notEqual, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
                tests.append(Test(field: field, op: comparison.op, constant: constant))
                return true
            default:
                return false
            }
        }
        guard gather(predicate), !tests.isEmpty else { return nil }
        self.tests = tests
    }

    /// Whether a row matches, reading each tested field through `value`.
    @inlinable
    public func matches(_ value: (Int) throws -> StoreValue) rethrows -> Bool {
        for test in tests where !Self.holds(try value(test.field), test.op, test.constant) { return false }
        return true
    }

    /// Whether a row matches, reading an integer field through `integer` (nil: not stored as an integer, read it
    /// through `value` instead) when the test's constant is an integer, any other field through `value`.
    @inlinable
    public func matches(integer: (Int) -> Int64?, value: (Int) throws -> StoreValue) rethrows -> Bool {
        for test in tests {
            if let constant = test.integerConstant, let field = integer(test.field) {
                guard Self.holds(field, test.op, constant) else { return false }
            } else if !Self.holds(try value(test.field), test.op, test.constant) {
                return false
            }
        }
        return true
    }

    /// `ValueComparison`'s answer for two integers.
    @usableFromInline
    static func holds(_ a: Int64, _ op: PredicateOperator, _ b: Int64) -> Bool {
        switch op {
        case .equal: return a == b
        case .notEqual: return a != b
        case .lessThan: return a < b
        case .lessThanOrEqual: return a <= b
        case .greaterThan: return a > b
        case .greaterThanOrEqual: return a >= b
        default: return false
        }
    }

    @usableFromInline
    static func holds(_ a: StoreValue, _ op: PredicateOperator, _ b: StoreValue) -> Bool {
        switch op {
        case .equal: return ValueComparison.equal(a, b)
        case .notEqual: return !ValueComparison.equal(a, b)
        case .lessThan: return ValueComparison.order(a, b) == .orderedAscending
        case .lessThanOrEqual: return ValueComparison.order(a, b).map { $0 != .orderedDescending } ?? false
        case .greaterThan: return ValueComparison.order(a, b) == .orderedDescending
        case .greaterThanOrEqual: return ValueComparison.order(a, b).map { $0 != .orderedAscending } ?? false
        default: return false
        }
    }
}
