import Foundation

/// The Swift migration policies a migration may use, each registered under the class name a mapping model names
/// (Core Data instantiates the Objective-C class of that name; Swift has no class to look up by name).
///
/// For example:
/// ```swift
/// var policies = EntityMigrationPolicies()
/// policies.register("V2to3MakerPolicy") { MakerPolicy() }
/// let manager = MigrationManager(sourceModel: v2, destinationModel: v3, policies: policies)
/// ```
/// A name matches with or without its module: `V2to3MakerPolicy` registered here runs the mappings that name
/// `REPLACE_AT_RUNTIME.V2to3MakerPolicy` or `Tests.V2to3MakerPolicy` (projects ship placeholder module names), and
/// `App.V2to3MakerPolicy` registered here runs those that name it exactly or unqualified. A mapping that names a
/// class nothing is registered under stops the migration before it writes anything, naming the class and the
/// mapping; it is never skipped. The manager makes one policy per entity mapping, as Core Data does.
public struct EntityMigrationPolicies: Sendable {
    /// Makes a fresh policy.
    public typealias Factory = @Sendable () -> any EntityMigrationPolicy

    private var factories: [String: Factory] = [:]

    /// No policies: every mapping must use the default one.
    public init() {}

    /// Registers `make` under `className`, replacing what was registered under that exact name.
    public mutating func register(_ className: String, _ make: @escaping Factory) {
        factories[className] = make
    }

    /// The class names registered, sorted.
    public var classNames: [String] { factories.keys.sorted() }

    /// A class name without its module: `V2to3MakerPolicy` of `REPLACE_AT_RUNTIME.V2to3MakerPolicy`.
    public static func unqualifiedName(_ className: String) -> String {
        className.split(separator: ".").last.map(String.init) ?? className
    }

    /// A new policy for `mapping`: the default one when it names none (or `NSEntityMigrationPolicy`), else the one
    /// registered under its class name, with or without the module.
    /// - Throws: `ObjectStackError(.migrationPolicyMissing)` naming the class and the mapping when nothing is
    ///   registered under it, or when it is ambiguous (two modules' classes of that name and neither exact).
    public func policy(for mapping: EntityMapping) throws -> any EntityMigrationPolicy {
        guard let className = mapping.entityMigrationPolicyClassName, !className.isEmpty,
            className != "NSEntityMigrationPolicy"
        else { return DefaultEntityMigrationPolicy() }
        if let make = factories[className] { return make() }
        let name = Self.unqualifiedName(className)
        let candidates = factories.filter { Self.unqualifiedName($0.key) == name }
        if candidates.count == 1, let make = candidates.first?.value { return make() }
        let registered = classNames.isEmpty ? "none is registered" : "registered: " + classNames.joined(separator: ", ")
        if candidates.count > 1 {
            throw ObjectStackError(
                code: .migrationPolicyMissing,
                message: "the entity mapping \(mapping.name) names the migration policy \(className), and "
                    + candidates.keys.sorted().joined(separator: " and ") + " are both registered under another "
                    + "module; register it under \(className) exactly")
        }
        throw ObjectStackError(
            code: .migrationPolicyMissing,
            message: "the entity mapping \(mapping.name) names the migration policy \(className), and no Swift "
                + "EntityMigrationPolicy is registered under \(name) (with or without a module; \(registered)); "
                + "register one that does what the app's class does")
    }
}
