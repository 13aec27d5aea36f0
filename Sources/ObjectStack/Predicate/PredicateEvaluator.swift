import Foundation

/// Reads what a predicate needs from rows: one store's rows, or a context's objects.
///
/// The evaluator walks key paths through it, so one evaluator serves the in-memory store, the LMDB store
/// and a context's unsaved changes with the same semantics.
public protocol PredicateResolver {
    /// A row or object the resolver can read.
    associatedtype Row

    /// The row of an object, or nil when it does not exist (a dangling reference reads as nil).
    func row(for objectID: ManagedObjectID) throws -> Row?
    /// The ID of a row.
    func objectID(of row: Row) -> ManagedObjectID
    /// An attribute's value.
    func value(of attribute: AttributeDescription, in row: Row) throws -> StoreValue
    /// The object a to-one relationship refers to.
    func destination(of relationship: RelationshipDescription, in row: Row) throws -> ManagedObjectID?
    /// The objects a to-many relationship holds.
    func destinations(of relationship: RelationshipDescription, in row: Row) throws -> [ManagedObjectID]
}

/// What an operand of a predicate or expression evaluates to: one value, or a collection's values (a to-many key
/// path, a list, what a mapping model's `$manager` function returns).
enum OperandValue {
    case single(StoreValue)
    case collection([StoreValue])
}

/// Evaluates bound predicates, sort keys and key paths over a resolver's rows.
///
/// Semantics are those of `ValueComparison`; `ANY` is false and `ALL` true on an empty collection.
public struct PredicateEvaluator<Resolver: PredicateResolver> {
    /// The row type of the resolver, which the evaluator reads values from.
    public typealias Row = Resolver.Row
    let resolver: Resolver

    /// Creates an evaluator over a resolver's rows.
    public init(resolver: Resolver) {
        self.resolver = resolver
    }

    /// The value of one operand: a single value or a collection.
    typealias Operand = OperandValue

    /// The rows variables stand for (a SUBQUERY's member, a mapping's `$source`), innermost last.
    typealias Scope = [(name: String, row: Row)]

    /// Whether `row` matches the predicate.
    public func evaluate(_ predicate: BoundPredicate, on row: Row) throws -> Bool {
        try evaluate(predicate, row, [])
    }

    /// The value of a key path without to-many steps (a sort key or a property to fetch).
    public func value(of path: BoundKeyPath, on row: Row) throws -> StoreValue {
        switch try operand(of: .keyPath(path), row, []) {
        case .single(let value): return value
        case .collection(let values): return values.first ?? .null
        }
    }

    /// The value of a lone expression (a derived attribute), collections reduced to their count.
    public func value(of expression: BoundExpression, on row: Row) throws -> StoreValue {
        switch try operand(of: expression, row, []) {
        case .single(let value): return value
        case .collection(let values): return .integer(Int64(values.count))
        }
    }

    /// The values of an operand: a collection's each value, a single value alone (an aggregate function's input).
    func values(of expression: BoundExpression, on row: Row, scope: Scope = []) throws -> [StoreValue] {
        switch try operand(of: expression, row, scope) {
        case .single(let value): return [value]
        case .collection(let values): return values
        }
    }

    /// An operand's value with variables bound to rows: one value, or a collection's values.
    func operand(of expression: BoundExpression, on row: Row, scope: Scope) throws -> Operand {
        try operand(of: expression, row, scope)
    }

    /// Orders two rows by sort keys (`.orderedSame` when they tie on every key).
    public func order(_ a: Row, _ b: Row, by keys: [BoundSortKey]) throws -> ComparisonResult {
        for key in keys {
            let result = ValueComparison.sortOrder(
                try value(of: key.keyPath, on: a), try value(of: key.keyPath, on: b),
                caseInsensitive: key.caseInsensitive)
            if result != .orderedSame {
                return key.ascending ? result : (result == .orderedAscending ? .orderedDescending : .orderedAscending)
            }
        }
        return .orderedSame
    }

    // MARK: - Predicates

    private func evaluate(_ predicate: BoundPredicate, _ row: Row, _ scope: Scope) throws -> Bool {
        switch predicate {
        case .constant(let value): return value
        case .and(let parts):
            for part in parts where try !evaluate(part, row, scope) { return false }
            return true
        case .or(let parts):
            for part in parts where try evaluate(part, row, scope) { return true }
            return false
        case .not(let inner): return try !evaluate(inner, row, scope)
        case .comparison(let comparison): return try evaluate(comparison, row, scope)
        }
    }

    private func evaluate(_ comparison: BoundComparison, _ row: Row, _ scope: Scope) throws -> Bool {
        let lhs = try operand(of: comparison.lhs, row, scope)
        let rhs = try operand(of: comparison.rhs, row, scope)
        switch (comparison.quantifier, lhs) {
        case (.direct, .single(let value)):
            return compare(value, comparison, rhs)
        case (.direct, .collection(let values)):
            // A collection on the left with CONTAINS: membership.
            guard case .single(let needle) = rhs else { return false }
            return values.contains { ValueComparison.equal($0, needle, comparison.options) }
        case (.any, .collection(let values)):
            return values.contains { compare($0, comparison, rhs) }
        case (.all, .collection(let values)):
            return values.allSatisfy { compare($0, comparison, rhs) }
        case (.none, .collection(let values)):
            return !values.contains { compare($0, comparison, rhs) }
        case (_, .single(let value)):
            // Binding only lets a quantifier through with a collection; treat a lone value as one element.
            let hit = compare(value, comparison, rhs)
            return comparison.quantifier == .none ? !hit : hit
        }
    }

    private func compare(_ value: StoreValue, _ comparison: BoundComparison, _ rhs: Operand) -> Bool {
        let options = comparison.options
        switch comparison.op {
        case .in:
            switch rhs {
            case .collection(let values): return values.contains { ValueComparison.equal(value, $0, options) }
            case .single(.string(let haystack)):
                guard case .string(let needle) = value else { return false }
                return ValueComparison.stringOperator(.contains, haystack, needle, options) { _, _ in nil }
            case .single: return false
            }
        case .between:
            guard case .collection(let bounds) = rhs, bounds.count == 2,
                let low = ValueComparison.order(value, bounds[0], options),
                let high = ValueComparison.order(value, bounds[1], options)
            else { return false }
            return low != .orderedAscending && high != .orderedDescending
        default:
            guard case .single(let other) = rhs else { return false }
            return compare(value, comparison.op, other, options, comparison.regex)
        }
    }

    private func compare(
        _ a: StoreValue, _ op: PredicateOperator, _ b: StoreValue, _ options: PredicateOptions, _ regex: RegexBox?
    ) -> Bool {
        switch op {
        case .equal: return ValueComparison.equal(a, b, options)
        case .notEqual: return !ValueComparison.equal(a, b, options)
        case .lessThan: return ValueComparison.order(a, b, options) == .orderedAscending
        case .lessThanOrEqual: return ValueComparison.order(a, b, options).map { $0 != .orderedDescending } ?? false
        case .greaterThan: return ValueComparison.order(a, b, options) == .orderedDescending
        case .greaterThanOrEqual: return ValueComparison.order(a, b, options).map { $0 != .orderedAscending } ?? false
        case .beginsWith, .endsWith, .contains, .like, .matches:
            guard case .string(let text) = a, case .string(let pattern) = b else { return false }
            return ValueComparison.stringOperator(op, text, pattern, options) { pattern, options in
                regex?.regex ?? (try? RegexBox(pattern: pattern, options: options))?.regex
            }
        case .in, .between:
            return false
        }
    }

    // MARK: - Operands

    private func operand(of expression: BoundExpression, _ row: Row, _ scope: Scope) throws -> Operand {
        switch expression {
        case .constant(let value): return .single(value)
        case .list(let values): return .collection(values)
        case .keyPath(let path): return try walk(path, row, scope)
        case .subquery(let subquery):
            guard case .collection(let members) = try walk(subquery.collection, row, scope) else {
                return .collection([])
            }
            var matches: [StoreValue] = []
            for member in members {
                guard case .objectID(let id) = member, let memberRow = try resolver.row(for: id) else { continue }
                // The member is the variable's; key paths without a variable stay on the evaluated object.
                if try evaluate(subquery.predicate, row, scope + [(subquery.variable, memberRow)]) {
                    matches.append(member)
                }
            }
            return .collection(matches)
        case .aggregate(let function, let inner):
            let values: [StoreValue]
            switch try operand(of: inner, row, scope) {
            case .single(let value): values = value.isNull ? [] : [value]
            case .collection(let all): values = all
            }
            return .single(ValueComparison.aggregate(function, values))
        case .arithmetic(let op, let lhs, let rhs):
            // Binding admits single values only; a collection (which it rejects) would read as nil.
            guard case .single(let a) = try operand(of: lhs, row, scope),
                case .single(let b) = try operand(of: rhs, row, scope)
            else { return .single(.null) }
            return .single(ValueComparison.arithmetic(op, a, b))
        }
    }

    /// Follows a key path from a row (or a subquery variable), collecting every value it reaches.
    private func walk(_ path: BoundKeyPath, _ row: Row, _ scope: Scope) throws -> Operand {
        var start = row
        if let variable = path.variable {
            guard let bound = scope.last(where: { $0.name == variable }) else { return .single(.null) }
            start = bound.row
        }
        if path.steps.isEmpty { return .single(.objectID(resolver.objectID(of: start))) }
        var rows = [start]
        var values: [StoreValue] = []
        for (position, step) in path.steps.enumerated() {
            let isLast = position == path.steps.count - 1
            var next: [Row] = []
            for current in rows {
                switch step {
                case .attribute(let attribute):
                    values.append(try resolver.value(of: attribute, in: current))
                case .toOne, .element:
                    let target = try destination(of: step, in: current)
                    if isLast {
                        values.append(target.map(StoreValue.objectID) ?? .null)
                    } else if let target, let targetRow = try resolver.row(for: target) {
                        next.append(targetRow)
                    } else if !path.isCollection {
                        return .single(.null)
                    }
                case .toMany(let relationship):
                    let targets = try resolver.destinations(of: relationship, in: current)
                    if isLast {
                        values.append(contentsOf: targets.map(StoreValue.objectID))
                    } else {
                        for target in targets {
                            if let targetRow = try resolver.row(for: target) { next.append(targetRow) }
                        }
                    }
                }
            }
            rows = next
        }
        guard path.isCollection else { return .single(values.first ?? .null) }
        guard path.distinctValues else { return .collection(values) }
        var seen = Set<StoreValue>()
        return .collection(values.filter { seen.insert($0).inserted })
    }

    /// The one object a to-one step or a subscripted to-many step leads to, if any.
    private func destination(of step: BoundKeyPath.Step, in row: Row) throws -> ManagedObjectID? {
        switch step {
        case .toOne(let relationship):
            return try resolver.destination(of: relationship, in: row)
        case .element(let relationship, let position):
            let members = try resolver.destinations(of: relationship, in: row).sorted {
                ValueComparison.order(.objectID($0), .objectID($1)) == .orderedAscending
            }
            return position.pick(members)
        case .attribute, .toMany:
            return nil
        }
    }
}
