import Foundation

/// The syntax tree of a predicate, as parsed from an NSPredicate-style format string or built in code.
///
/// It names key paths by string; `PredicateBinder` checks them against an entity and produces the
/// bound form that stores evaluate or compile. Constants are already `StoreValue`s: format arguments
/// (`%@`, `%d`, `%f`) are converted when the predicate is parsed, so a predicate is `Sendable`.
indirect enum PredicateNode: Sendable, Hashable {
    /// `TRUEPREDICATE` / `FALSEPREDICATE`.
    case constant(Bool)
    case comparison(PredicateComparison)
    case and([PredicateNode])
    case or([PredicateNode])
    case not(PredicateNode)
}

/// One comparison: `lhs op rhs`, with an optional `ANY`/`ALL`/`NONE` quantifier and `[cd]` options.
struct PredicateComparison: Sendable, Hashable {
    var quantifier: PredicateQuantifier
    var lhs: PredicateExpression
    var op: PredicateOperator
    var rhs: PredicateExpression
    var options: PredicateOptions

    init(
        _ lhs: PredicateExpression,
        _ op: PredicateOperator,
        _ rhs: PredicateExpression,
        quantifier: PredicateQuantifier = .direct,
        options: PredicateOptions = []
    ) {
        self.quantifier = quantifier
        self.lhs = lhs
        self.op = op
        self.rhs = rhs
        self.options = options
    }
}

/// `ANY` (also spelled `SOME`), `ALL`, `NONE`, or none of them.
enum PredicateQuantifier: String, Sendable, Hashable {
    case direct = ""
    case any = "ANY"
    case all = "ALL"
    case none = "NONE"
}

/// The comparison operators of the format-string language.
public enum PredicateOperator: String, Sendable, Hashable, CaseIterable {
    case equal = "=="
    case notEqual = "!="
    case lessThan = "<"
    case lessThanOrEqual = "<="
    case greaterThan = ">"
    case greaterThanOrEqual = ">="
    case `in` = "IN"
    case between = "BETWEEN"
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case contains = "CONTAINS"
    case like = "LIKE"
    case matches = "MATCHES"

    /// Whether the operator works on strings only.
    var isStringOperator: Bool {
        switch self {
        case .beginsWith, .endsWith, .like, .matches: return true
        default: return false
        }
    }
}

/// String comparison options: `[c]` case-insensitive, `[d]` diacritic-insensitive, `[n]` normalized.
public struct PredicateOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `[c]`
    public static let caseInsensitive = PredicateOptions(rawValue: 1)
    /// `[d]`
    public static let diacriticInsensitive = PredicateOptions(rawValue: 2)
    /// `[n]`: accepted for compatibility; strings are compared as given.
    public static let normalized = PredicateOptions(rawValue: 4)
}

/// An expression: a constant, a key path, a variable, an aggregate, a subquery or arithmetic on expressions.
indirect enum PredicateExpression: Sendable, Hashable {
    /// A literal or an argument: `'abc'`, `42`, `3.5`, `TRUE`, `NIL`, `%@`, `%d`…
    case constant(StoreValue)
    /// An aggregate literal `{1, 2, 3}` or an array/set argument (for `IN` and `BETWEEN`).
    case list([PredicateExpression])
    /// `SELF`, or a key path from the evaluated object: `author.name` is `["author", "name"]`.
    /// `SELF` alone is an empty array. Collection operators stay in the path as components
    /// (`books.@count` is `["books", "@count"]`, `books.@sum.pages` is `["books", "@sum", "pages"]`), and so
    /// do subscripts, brackets included (`tags[FIRST].name` is `["tags", "[FIRST]", "name"]`; also `[LAST]`,
    /// `[SIZE]` and `[n]`).
    case keyPath([String])
    /// `$name`, optionally followed by a key path: `$b.pages` is `.variable("b", ["pages"])`.
    case variable(String, [String])
    /// `SUBQUERY(collection, $var, predicate)`, optionally followed by a key path such as `@count`.
    case subquery(collection: PredicateExpression, variable: String, predicate: PredicateNode, path: [String])
    /// `lhs + rhs`, `lhs - rhs`, `lhs * rhs`, `lhs / rhs`, `lhs ** rhs`.
    case arithmetic(ArithmeticOperator, PredicateExpression, PredicateExpression)
    /// Unary minus: `-price`. A minus before a number literal is part of the literal instead.
    case negate(PredicateExpression)
    /// One of NSExpression's functions by its name, applied to its arguments: `now()`, `lowercase:(name)`,
    /// `add:to:(pages, 1)`. A `PropertyExpression` binds it; a predicate refuses it.
    case function(String, [PredicateExpression])
    /// `FUNCTION(receiver, 'selector', arguments…)`: a method called on a value or on one of a mapping model's
    /// objects (`$manager`, `$entityPolicy`). Only a mapping model's value expressions bind it.
    case call(receiver: PredicateExpression, selector: String, arguments: [PredicateExpression])
}

/// The arithmetic operators of the format-string language: `**` binds tighter than `*` and `/`, which bind
/// tighter than `+` and `-`; each groups to the left (`2 ** 3 ** 2` is 64, as NSExpression computes it).
public enum ArithmeticOperator: String, Sendable, Hashable, CaseIterable {
    case add = "+"
    case subtract = "-"
    case multiply = "*"
    case divide = "/"
    /// NSExpression's `raise:toPower:`.
    case power = "**"

    /// How tightly the operator binds: 1 for `+ -`, 2 for `* /`, 3 for `**`.
    var precedence: Int {
        switch self {
        case .add, .subtract: return 1
        case .multiply, .divide: return 2
        case .power: return 3
        }
    }
}

/// A subscript on a to-many relationship, as a key-path component spells it (`"[FIRST]"`, `"[3]"`).
enum PredicateSubscript: Hashable {
    case first, last, size
    case index(Int)

    /// The subscript a key-path component stands for, or nil when the component is a key.
    init?(component: String) {
        guard component.hasPrefix("["), component.hasSuffix("]"), component.count > 2 else { return nil }
        let inner = component.dropFirst().dropLast()
        switch inner {
        case "FIRST": self = .first
        case "LAST": self = .last
        case "SIZE": self = .size
        default:
            guard let index = Int(inner), index >= 0, String(index) == inner else { return nil }
            self = .index(index)
        }
    }

    /// The key-path component for the subscript.
    var component: String {
        switch self {
        case .first: return "[FIRST]"
        case .last: return "[LAST]"
        case .size: return "[SIZE]"
        case .index(let index): return "[\(index)]"
        }
    }
}

/// A predicate syntax error: what is wrong, and where (a character offset into the format string).
public struct PredicateSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The format string as given.
    public let format: String
    /// Offset in characters from the start of `format` where the problem was found.
    public let position: Int
    /// What is wrong, e.g. "expected an operator after 'name'".
    public let reason: String

    /// Creates an error at `position` (in characters) of `format`, saying what is wrong.
    public init(format: String, position: Int, reason: String) {
        self.format = format
        self.position = position
        self.reason = reason
    }

    public var description: String {
        "malformed predicate at position \(position): \(reason) in \"\(format)\""
    }
}
