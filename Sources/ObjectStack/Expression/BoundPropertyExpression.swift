/// A ``PropertyExpression`` checked against an entity: its key paths resolved to the model's properties, its
/// functions known and given the arguments they take, its result of a known kind.
///
/// Stores receive this form, as they receive ``BoundPredicate``: the in-memory and LMDB stores evaluate it per row,
/// the SQLite store compiles it into SQL. What holds no function is an operand of the predicate language
/// (``BoundExpression``), so a store reuses what it already does for predicates.
public indirect enum BoundPropertyExpression: Sendable {
    /// A constant, key path, aggregate or arithmetic of the predicate language, with no function in it.
    case operand(BoundExpression)
    /// A function applied to its arguments (an aggregate's arguments: each value it reduces).
    case function(ExpressionFunction, [BoundPropertyExpression])
    /// `lhs + rhs`… where a side holds a function (`abs:(x) + 1`); otherwise it is an operand.
    case arithmetic(ArithmeticOperator, BoundPropertyExpression, BoundPropertyExpression)

    /// The constant the expression is, when it is one.
    public var constantValue: StoreValue? {
        guard case .operand(.constant(let value)) = self else { return nil }
        return value
    }

    /// Every key path the expression reads.
    public var keyPaths: [BoundKeyPath] {
        switch self {
        case .operand(let operand): return Self.keyPaths(in: operand)
        case .function(_, let arguments): return arguments.flatMap(\.keyPaths)
        case .arithmetic(_, let lhs, let rhs): return lhs.keyPaths + rhs.keyPaths
        }
    }

    private static func keyPaths(in operand: BoundExpression) -> [BoundKeyPath] {
        switch operand {
        case .constant, .list: return []
        case .keyPath(let path): return [path]
        case .subquery(let subquery): return [subquery.collection]
        case .aggregate(_, let inner): return keyPaths(in: inner)
        case .arithmetic(_, let lhs, let rhs): return keyPaths(in: lhs) + keyPaths(in: rhs)
        }
    }
}
