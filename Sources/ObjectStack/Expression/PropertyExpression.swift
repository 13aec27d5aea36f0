import Foundation

/// An expression that computes a property's value for an object: Core Data's `NSExpression` as batch updates
/// (`BatchUpdateRequest.propertiesToUpdate`), derived attributes (`derivationExpression`) and mapping models' value
/// expressions use it — one parser, binder and evaluator for all three.
///
/// For example:
/// ```swift
/// var request = BatchUpdateRequest(entityName: "Pod")
/// request.propertiesToUpdate = [
///     "downloads": try PropertyExpression(format: "downloads + 1"),
///     "slug": try PropertyExpression(format: "lowercase:(name)"),
///     "checked": try PropertyExpression(format: "now()"),
///     "license": "MIT",                                     // a constant, as before
/// ]
/// ```
/// The language is NSExpression's format: the predicate language's operands (constants, `%@`/`%d`/`%K` arguments,
/// key paths, `@count`/`@sum`… collection operators, `{…}` lists, arithmetic with `+ - * / **`) and NSExpression's
/// function calls, `name(arguments)` with the name as NSExpression spells it: `now()`, `lowercase:(name)`,
/// `add:to:(downloads, 1)` (see ``ExpressionFunction`` for the list). `FUNCTION(receiver, 'selector', …)` is not
/// supported.
///
/// The name: Core Data's type is `NSExpression`, and without the prefix it would be `Expression`, which Foundation
/// already declares (the type of the `#Expression` macro), so every file that imports Foundation would have to
/// qualify it. ``FetchExpression`` is taken too, and is narrower: the key paths and aggregate functions a fetch's
/// `ExpressionDescription` computes over a group of rows. A `PropertyExpression` computes one object's property.
///
/// An expression is bound to an entity before use (`bound(to:)`): unknown keys, functions and arguments of the
/// wrong kind are refused then, with an error naming them, before anything is read or written.
public struct PropertyExpression: Sendable, Hashable, CustomStringConvertible {
    /// The parsed expression, its key paths still by name.
    let node: PredicateExpression

    init(node: PredicateExpression) {
        self.node = node
    }

    /// Parses NSExpression's format with variadic arguments (`%@`, `%d`, `%f`, `%K`).
    ///
    /// For example:
    /// ```swift
    /// let bumped = try PropertyExpression(format: "%K + %d", "downloads", 1)
    /// ```
    /// - Throws: `ObjectStackError` `.malformedPredicate` naming the position and what was expected.
    public init(format: String, _ arguments: Any...) throws {
        try self.init(format: format, argumentArray: arguments)
    }

    /// Parses NSExpression's format with an array of arguments.
    /// - Throws: `ObjectStackError` `.malformedPredicate` naming the position and what was expected.
    public init(format: String, argumentArray: [Any]) throws {
        node = try PredicateParser.parse(format, argumentArray) { parser throws(PredicateSyntaxError) in
            try parser.parseExpression()
        }
    }

    /// The value of a key path of the object (`"downloads"`, `"author.name"`): `NSExpression(forKeyPath:)`.
    public init(forKeyPath keyPath: String) {
        node = .keyPath(
            keyPath.isEmpty ? [] : keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init))
    }

    /// A constant: `NSExpression(forConstantValue:)`. Nil (or `NSNull`) is nil; an array or set is a list.
    /// - Throws: `ObjectStackError` `.invalidArgument` for a value of a type no attribute holds.
    public init(forConstantValue value: Any?) throws {
        guard let value, !(value is NSNull) else {
            node = .constant(.null)
            return
        }
        do throws(UnsupportedPredicateArgument) {
            node = try PredicateArgument.expression(for: value)
        } catch {
            throw ObjectStackError(
                code: .invalidArgument, message: "a constant of an expression cannot be \(error.reason)")
        }
    }

    /// A function by its NSExpression name applied to arguments: `NSExpression(forFunction:arguments:)`. Whether
    /// the function exists and takes these arguments is checked when the expression is bound.
    ///
    /// For example:
    /// ```swift
    /// let lower = PropertyExpression(forFunction: "lowercase:", arguments: [PropertyExpression(forKeyPath: "name")])
    /// ```
    public init(forFunction name: String, arguments: [PropertyExpression]) {
        node = .function(name, arguments.map(\.node))
    }

    /// The expression in NSExpression's format: `downloads + 1`, `lowercase:(name)`.
    public var description: String { node.predicateFormat }

    /// Checks the expression against `entity` and resolves its key paths: the form a store computes.
    /// - Throws: `ObjectStackError`: `.unknownKeyPath` for a key the entity does not have, `.typeMismatch` for a
    ///   function or operator given a value of the wrong kind, `.invalidArgument` for an unknown function or a wrong
    ///   number of arguments.
    public func bound(to entity: EntityDescription) throws -> BoundPropertyExpression {
        try PropertyExpressionBinder(entity: entity).bind(node)
    }
}
