import Foundation

/// Why the model-driven generator will not populate a model: the entity and property it cannot satisfy.
///
/// Raised while planning, before anything is written, so a refused model never leaves a half-written store.
/// For example:
/// ```swift
/// do { _ = try PopulationPlan(model: model, spec: PopulationSpec(), seed: 1) }
/// catch let refusal as PopulationRefusal { print(refusal) }   // "Account.pin: required, and …"
/// ```
public struct PopulationRefusal: Error, Sendable, CustomStringConvertible {
    /// The entity at fault.
    public let entity: String
    /// The attribute or relationship at fault, if the problem is one property.
    public let property: String?
    /// What cannot be satisfied.
    public let reason: String

    /// Creates a refusal.
    public init(entity: String, property: String? = nil, _ reason: String) {
        self.entity = entity
        self.property = property
        self.reason = reason
    }

    public var description: String {
        "cannot populate \(entity)\(property.map { ".\($0)" } ?? ""): \(reason)"
    }
}
