import Foundation

/// A filter for fetch requests, written in NSPredicate's format-string language or built in code.
///
/// For example:
/// ```swift
/// let recent = try FetchPredicate(format: "title BEGINSWITH[cd] %@ AND pages > %d", "the", 100)
/// let prolific = try FetchPredicate(format: "books.@count >= 3")
/// let either = FetchPredicate.or([recent, prolific])
/// ```
/// The language: comparisons (`== != < <= > >=`), `AND/OR/NOT`, `IN`, `BETWEEN`, `BEGINSWITH`, `ENDSWITH`,
/// `CONTAINS`, `LIKE` (with `\*` and `\?` for a literal `*` or `?`), `MATCHES` with `[c]`, `[d]`, `[cd]`;
/// `ANY/ALL/NONE`; `@count @sum @avg @min @max`; `SUBQUERY`; arithmetic (`price * 2 > 10`); subscripts on
/// to-many key paths (`tags[SIZE]`, `tags[FIRST].name`, `[LAST]`, `[n]`); arguments `%@ %d %f %K` (surplus
/// arguments are ignored, as NSPredicate ignores them); key paths through relationships. Comparison rules
/// (the same on every store) are documented on `SortKey` and `ValueComparison`.
public struct FetchPredicate: Sendable, Hashable, CustomStringConvertible {
    let node: PredicateNode

    init(node: PredicateNode) {
        self.node = node
    }

    /// Parses a format string, substituting the arguments.
    /// - Throws: `ObjectStackError` `.malformedPredicate` with the position and reason (the `cause` is the
    ///   `PredicateSyntaxError`).
    public init(format: String, _ arguments: Any...) throws {
        try self.init(format: format, argumentArray: arguments)
    }

    /// Parses a format string with an array of arguments.
    public init(format: String, argumentArray: [Any]) throws {
        node = try PredicateParser.parse(format, argumentArray) { parser throws(PredicateSyntaxError) in
            try parser.parsePredicate()
        }
    }

    /// A predicate that is always (or never) true.
    public init(value: Bool) {
        node = .constant(value)
    }

    /// All of the predicates.
    public static func and(_ predicates: [FetchPredicate]) -> FetchPredicate {
        FetchPredicate(node: .and(predicates.map(\.node)))
    }

    /// Any of the predicates.
    public static func or(_ predicates: [FetchPredicate]) -> FetchPredicate {
        FetchPredicate(node: .or(predicates.map(\.node)))
    }

    /// The negation of a predicate.
    public static func not(_ predicate: FetchPredicate) -> FetchPredicate {
        FetchPredicate(node: .not(predicate.node))
    }

    /// A comparison of a key path with a value, built in code.
    ///
    /// For example: `try FetchPredicate.compare("author.name", .beginsWith, "Frank", options: .caseInsensitive)`.
    /// - Throws: `ObjectStackError` `.malformedPredicate` when the value cannot be a predicate constant.
    public static func compare(
        _ keyPath: String, _ op: PredicateOperator, _ value: Any?, options: PredicateOptions = []
    ) throws -> FetchPredicate {
        let rhs: PredicateExpression
        do {
            rhs = try PredicateArgument.expression(for: value as Any)
        } catch {
            throw ObjectStackError(
                code: .malformedPredicate,
                message: "cannot compare \(keyPath) with \(value.map { "\(type(of: $0))" } ?? "nil"): \(error.reason)")
        }
        let lhs = PredicateExpression.keyPath(keyPath.split(separator: ".").map(String.init))
        return FetchPredicate(node: .comparison(PredicateComparison(lhs, op, rhs, options: options)))
    }

    /// The predicate as NSPredicate's `predicateFormat` prints it (booleans as `1`/`0`, compound operands of a
    /// compound in parentheses), which parses back to an equivalent predicate.
    public var predicateFormat: String { node.predicateFormat }
    public var description: String { predicateFormat }

    /// Whether an object matches, evaluated on its current (unsaved) values.
    /// - Throws: `ObjectStackError` when a key path is not one of the object's entity.
    public func evaluate(with object: ManagedObject) throws -> Bool {
        let bound = try PredicateBinder(entity: object.entity).bind(node)
        guard let context = object.managedObjectContext else {
            throw ObjectStackError(code: .invalidArgument, message: "\(object) has no context to read its values from")
        }
        return try PredicateEvaluator(resolver: ContextResolver(context: context)).evaluate(bound, on: object)
    }
}
