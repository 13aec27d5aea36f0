import Foundation

extension Derivation {
    /// Refuses a derivation whose result an attribute of its type cannot hold, as Core Data does when it loads
    /// the model (instead of leaving the attribute unset at every save).
    /// - Throws: `ObjectStackError` `.invalidModel` naming the entity, the attribute, both types and the derivation.
    func checkResultType(of attribute: AttributeDescription, in entity: EntityDescription) throws {
        let result = ExpressionResultType.of(expression)
        guard !result.fits(attribute.type) else { return }
        throw ObjectStackError.invalidModel(
            "derived attribute \(entity.name).\(attribute.name) is \(ExpressionResultType.typeName(attribute.type)), "
                + "but its derivation '\(attribute.derivationExpression ?? "")' yields "
                + (result == .object ? "an object" : result.name))
    }
}
