import Foundation

/// A predicate checked against an entity: every key path resolved to the model's properties.
///
/// Stores receive this form: the in-memory and LMDB stores evaluate it with `PredicateEvaluator`, the
/// SQLite store compiles it to SQL. Binding has already rejected unknown keys and unlike types.
public indirect enum BoundPredicate: Sendable {
    case constant(Bool)
    case comparison(BoundComparison)
    case and([BoundPredicate])
    case or([BoundPredicate])
    case not(BoundPredicate)
}

/// A comparison whose operands are bound.
public struct BoundComparison: Sendable {
    /// How a collection-valued left side is compared.
    public enum Quantifier: Sendable { case direct, any, all, none }

    /// How the left side is quantified.
    public let quantifier: Quantifier
    /// The left side.
    public let lhs: BoundExpression
    /// The operator. `CONTAINS` with a collection on the left and `IN` with a collection on the right are
    /// membership tests; with strings they are substring tests.
    public let op: PredicateOperator
    /// The right side.
    public let rhs: BoundExpression
    /// `[c]`, `[d]`.
    public let options: PredicateOptions
    /// For `MATCHES` with a constant pattern: the compiled expression.
    let regex: RegexBox?
}

/// An operand of a bound comparison.
public indirect enum BoundExpression: Sendable {
    case constant(StoreValue)
    /// A list of constants (`{1, 2}`, or an array argument).
    case list([StoreValue])
    /// A key path from the evaluated object or a subquery variable; collection-valued if it crosses a to-many.
    case keyPath(BoundKeyPath)
    /// `SUBQUERY(collection, $v, predicate)`: the objects of the collection that match.
    case subquery(BoundSubquery)
    /// `@count`, `@sum`, `@avg`, `@min`, `@max` of a collection-valued operand (`[SIZE]` is `@count`).
    case aggregate(AggregateFunction, BoundExpression)
    /// `lhs + rhs`… on numbers; `-x` is bound as `0 - x`. See `ValueComparison.arithmetic` for the rules.
    case arithmetic(ArithmeticOperator, BoundExpression, BoundExpression)

    /// Whether the operand yields a collection rather than one value.
    public var isCollection: Bool {
        switch self {
        case .constant, .aggregate, .arithmetic: return false
        case .list, .subquery: return true
        case .keyPath(let path): return path.isCollection
        }
    }
}

/// A collection operator of a key path.
public enum AggregateFunction: String, Sendable {
    case count = "@count"
    case sum = "@sum"
    case avg = "@avg"
    case min = "@min"
    case max = "@max"
}

/// A key path resolved to properties.
public struct BoundKeyPath: Sendable, CustomStringConvertible {
    /// One step of a key path.
    public enum Step: Sendable {
        case attribute(AttributeDescription)
        case toOne(RelationshipDescription)
        case toMany(RelationshipDescription)
        /// A subscript on a to-many relationship (`tags[FIRST]`): one member, or none, like a to-one.
        case element(RelationshipDescription, Position)

        /// The step's property name.
        public var name: String {
            switch self {
            case .attribute(let a): return a.name
            case .toOne(let r), .toMany(let r): return r.name
            case .element(let r, let position): return r.name + position.description
            }
        }
    }

    /// Which member of a to-many relationship a subscript picks. Members are ordered by primary key (object
    /// ID order; unsaved objects after saved ones), the same on every store, ordered relationships included:
    /// no store keeps a to-many's order.
    public enum Position: Sendable, Hashable, CustomStringConvertible {
        case first, last
        /// Zero-based; past the end is no member (nil).
        case index(Int)

        public var description: String {
            switch self {
            case .first: return "[FIRST]"
            case .last: return "[LAST]"
            case .index(let index): return "[\(index)]"
            }
        }

        /// The member at this position of members already in primary-key order.
        public func pick<T>(_ members: [T]) -> T? {
            switch self {
            case .first: return members.first
            case .last: return members.last
            case .index(let index): return index < members.count ? members[index] : nil
            }
        }
    }

    /// The subquery variable the path starts from, or nil for the evaluated object (`SELF`).
    public let variable: String?
    /// The steps; empty for `SELF` or a bare variable.
    public let steps: [Step]
    /// Whether a collection's repeated values are dropped (`@distinctUnionOfSets` in a mapping model's value
    /// expression; a key path through to-many relationships otherwise yields each member's value once per path).
    var distinctValues = false

    /// Whether the path crosses a to-many relationship (and so yields a collection).
    public var isCollection: Bool {
        steps.contains { if case .toMany = $0 { return true } else { return false } }
    }

    /// The attribute the path ends on, if it ends on one.
    public var finalAttribute: AttributeDescription? {
        if case .attribute(let attribute)? = steps.last { return attribute }
        return nil
    }

    public var description: String {
        let names = steps.map(\.name)
        if let variable { return (["$" + variable] + names).joined(separator: ".") }
        return names.isEmpty ? "SELF" : names.joined(separator: ".")
    }
}

/// A bound `SUBQUERY`.
public struct BoundSubquery: Sendable {
    /// The collection iterated (a to-many key path).
    public let collection: BoundKeyPath
    /// The variable each member is bound to.
    public let variable: String
    /// The entity of the members.
    public let entity: EntityDescription
    /// The condition a member must meet.
    public let predicate: BoundPredicate
}

/// A sort key whose key path is bound (to-one steps only).
public struct BoundSortKey: Sendable {
    /// The key path sorted on.
    public let keyPath: BoundKeyPath
    /// Ascending or descending.
    public let ascending: Bool
    /// Whether strings are compared after case folding.
    public let caseInsensitive: Bool
}

/// A compiled regular expression shared between threads.
final class RegexBox: @unchecked Sendable {
    // @unchecked: NSRegularExpression is immutable and documented as safe to use from several threads.
    let regex: NSRegularExpression

    init(pattern: String, options: PredicateOptions) throws {
        regex = try ValueComparison.matchesExpression(pattern, options)
    }

    func matches(_ text: String) -> Bool {
        let range = NSRange(text.startIndex..<text.endIndex, in: text)
        return regex.firstMatch(in: text, options: [.anchored], range: range) != nil
    }
}
