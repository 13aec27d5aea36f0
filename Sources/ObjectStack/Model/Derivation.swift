import Foundation

/// How a derived attribute computes its value at save: its `derivationExpression` as a ``PropertyExpression`` bound
/// to its entity — a key path or aggregate (`books.@count`, `author.name`), arithmetic, or one of the functions
/// Xcode offers for derivations (`now()`, `canonical:(name)`, `lowercase:(name)`, `uppercase:(name)`) or any other
/// the expression engine knows.
struct Derivation: Sendable {
    let expression: BoundPropertyExpression

    /// Parses and binds a derivation expression against its entity.
    /// - Throws: `ObjectStackError` for an expression that does not parse or bind.
    static func bind(_ text: String, of attribute: AttributeDescription, entity: EntityDescription) throws -> Derivation
    {
        Derivation(expression: try PropertyExpression(format: text).bound(to: entity))
    }

    /// The derived value for an object, before it is converted to the attribute's type.
    /// - Parameter now: the date `now()` gives: the save's.
    func value<Resolver: PredicateResolver>(
        using evaluator: PredicateEvaluator<Resolver>, on row: Resolver.Row, now: Date
    ) throws -> StoreValue {
        try evaluator.value(of: expression, on: row, now: now)
    }
}
