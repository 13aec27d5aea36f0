import Foundation
import ObjectStack

/// The transformer the generator registers for a transformable attribute whose transformer the program has not
/// registered: its values are lists of words, stored as JSON.
///
/// A model file names transformer classes of its app (`ColorsTransformer`, `NSSecureUnarchiveFromData`…) that
/// do not exist here; without a registered transformer a transformable attribute cannot be written at all.
/// `registerMissing(for:)` fills in only names nobody registered, so an app's own transformer is used when
/// there is one.
public struct GeneratedValueTransformer: AttributeValueTransformer {
    /// Creates the transformer.
    public init() {}

    public func transformedValue(_ value: Any) throws -> Data {
        guard let words = value as? [String] else {
            throw LabError(.unsupported, "the generator's transformer stores lists of strings, not \(type(of: value))")
        }
        return try JSONEncoder().encode(words)
    }

    public func reverseTransformedValue(_ data: Data) throws -> Any {
        try JSONDecoder().decode([String].self, from: data)
    }

    /// Registers this transformer under every transformer name of the model's stored transformable attributes
    /// that has none registered; returns the names it registered.
    @discardableResult
    public static func registerMissing(for model: ManagedObjectModel) -> [String] {
        var registered: [String] = []
        for entity in model.entities {
            for attribute in entity.declaredAttributes where attribute.type == .transformable && !attribute.isTransient
            {
                guard let name = attribute.valueTransformerName,
                    ValueTransformerRegistry.transformer(named: name) == nil
                else { continue }
                ValueTransformerRegistry.register(GeneratedValueTransformer(), forName: name)
                registered.append(name)
            }
        }
        return registered
    }
}
