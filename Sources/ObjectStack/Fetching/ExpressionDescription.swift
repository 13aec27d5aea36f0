import Foundation

/// A computed property of a fetch's dictionary results: a name (the dictionary key), an expression and the
/// type of its value, as Core Data's `NSExpressionDescription`.
///
/// For example, the number of books and their total pages per author:
/// ```swift
/// var request = FetchRequest<[String: Any]>(entityName: "Book")
/// request.resultType = .dictionary
/// request.propertiesToFetch = [
///     "author.name",
///     ExpressionDescription(name: "books", expression: .count("title")),
///     ExpressionDescription(name: "pages", expression: .sum("pages"), expressionResultType: .integer64),
/// ]
/// request.propertiesToGroupBy = ["author.name"]
/// request.havingPredicate = try FetchPredicate(format: "$books > 1")
/// let rows = try context.fetch(request)   // [["author.name": "Le Guin", "books": 3, "pages": 1006], …]
/// ```
public struct ExpressionDescription: Sendable, Hashable, CustomStringConvertible {
    /// The key of the computed value in each result dictionary, and the variable (`$name`) a `havingPredicate`
    /// refers to it by.
    public var name: String
    /// What is computed.
    public var expression: FetchExpression
    /// The type the value is returned as (Core Data's `expressionResultType`), converted as SQLite converts a
    /// column (a fraction read as an integer is truncated); nil for the function's own type: `count:` integer64;
    /// `sum:` integer64 over integers and booleans, double over floating point, decimal over decimals;
    /// `average:` double (decimal over decimals); `min:`/`max:` the attribute's type.
    public var expressionResultType: AttributeType?

    /// Creates an expression description.
    public init(name: String, expression: FetchExpression, expressionResultType: AttributeType? = nil) {
        self.name = name
        self.expression = expression
        self.expressionResultType = expressionResultType
    }

    public var description: String {
        "\(name) = \(expression)" + (expressionResultType.map { " as \($0.rawValue)" } ?? "")
    }
}

/// One entry of a fetch request's `propertiesToFetch` or `propertiesToGroupBy`: a key path or an expression
/// description.
public enum FetchProperty: Sendable, Hashable {
    /// An attribute or to-one key path of the fetched entity: `"title"`, `"author.name"`, `"author"`.
    case keyPath(String)
    /// A computed value under a name.
    case expression(ExpressionDescription)

    /// The key of the property's value in a result dictionary.
    public var name: String {
        switch self {
        case .keyPath(let path): return path
        case .expression(let description): return description.name
        }
    }
}

/// What `propertiesToFetch` and `propertiesToGroupBy` take, as Core Data's take strings, property
/// descriptions and expression descriptions: `String` (a key path), `ExpressionDescription`,
/// `AttributeDescription`, `RelationshipDescription` (a to-one), and `FetchProperty` itself.
public protocol FetchPropertyConvertible: Sendable {
    /// The property this value stands for.
    var fetchProperty: FetchProperty { get }
}

extension FetchProperty: FetchPropertyConvertible {
    public var fetchProperty: FetchProperty { self }
}

extension String: FetchPropertyConvertible {
    /// A key path.
    public var fetchProperty: FetchProperty { .keyPath(self) }
}

extension ExpressionDescription: FetchPropertyConvertible {
    public var fetchProperty: FetchProperty { .expression(self) }
}

extension AttributeDescription: FetchPropertyConvertible {
    /// The attribute, by name.
    public var fetchProperty: FetchProperty { .keyPath(name) }
}

extension RelationshipDescription: FetchPropertyConvertible {
    /// The relationship, by name (a to-one: its object's ID).
    public var fetchProperty: FetchProperty { .keyPath(name) }
}
