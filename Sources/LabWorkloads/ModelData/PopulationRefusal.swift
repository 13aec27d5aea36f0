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
    /// The key of the scenario's `population:` whose count makes it impossible (an entity name), when one does.
    public let populationKey: String?

    /// Creates a refusal.
    public init(entity: String, property: String? = nil, populationKey: String? = nil, _ reason: String) {
        self.entity = entity
        self.property = property
        self.populationKey = populationKey
        self.reason = reason
    }

    public var description: String {
        "cannot populate \(entity)\(property.map { ".\($0)" } ?? ""): \(reason)"
    }
}
