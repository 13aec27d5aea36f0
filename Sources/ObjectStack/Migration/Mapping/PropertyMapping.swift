import Foundation

/// How one property of a destination entity gets its value in a migration (Core Data's `NSPropertyMapping`).
///
/// For example, an attribute renamed from `color` to `hexColor`, and a relationship filled with the destination
/// objects made from the source's related objects:
/// ```swift
/// let hex = PropertyMapping(name: "hexColor", valueExpression: try PropertyExpression(format: "$source.color"))
/// let owner = PropertyMapping(
///     name: "owner",
///     valueExpression: try PropertyExpression(
///         format: "FUNCTION($manager, 'destinationInstancesForEntityMappingNamed:sourceInstances:', %@, $source.owner)",
///         "PersonToPerson"))
/// ```
/// The value expression is evaluated by the one expression engine (``PropertyExpression``) with the migration's
/// variables: `$source` (the source object), `$destination` (while relationships are made), `$manager`,
/// `$entityMapping` and `$entityPolicy`. An attribute mapping without an expression reads the same-named attribute
/// of the source entity, when it has one (`$source.name`); a relationship mapping without one, or an attribute the
/// source does not have, leaves its property as the entity mapping's policy set it (nil, or empty). Reading an Xcode
/// mapping model fills in the expressions Xcode leaves implicit, as its compiled form holds them (see
/// ``MappingModel``).
public struct PropertyMapping: Sendable, Hashable {
    /// The destination property's name.
    public var name: String
    /// What the property is set to, or nil to leave it unset.
    public var valueExpression: PropertyExpression?
    /// Whatever the mapping model's author stored with the mapping.
    public var userInfo: [String: String]

    /// Creates a property mapping.
    public init(name: String, valueExpression: PropertyExpression? = nil, userInfo: [String: String] = [:]) {
        self.name = name
        self.valueExpression = valueExpression
        self.userInfo = userInfo
    }
}
