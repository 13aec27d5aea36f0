import Foundation

extension PropertyExpression {
    /// The expression bound as a mapping model's value expression: `$source` and the other migration variables
    /// of `scope`, `FUNCTION(…)` calls, the union collection operators.
    func bound(to entity: EntityDescription, mapping scope: MappingExpressionScope) throws -> BoundPropertyExpression {
        try PropertyExpressionBinder(entity: entity, mapping: scope).bind(node)
    }
}
