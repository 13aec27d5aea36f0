import Foundation

/// Code that takes part in migrating one entity mapping's instances (Core Data's `NSEntityMigrationPolicy`),
/// registered under the class name the mapping model names (``EntityMigrationPolicies``).
///
/// The migration manager calls a policy at each step of Core Data's three stages, for its entity mapping:
/// `begin(_:with:)`, then `createDestinationInstances(forSource:in:manager:)` for each source instance and
/// `endInstanceCreation(forMapping:manager:)`; later `createRelationships(forDestination:in:manager:)` for each
/// destination instance the mapping made and `endRelationshipCreation(forMapping:manager:)`; last
/// `performCustomValidation(forMapping:manager:)` and `end(_:manager:)`. Every method has a default: the two that
/// create call `defaultCreateDestinationInstances(forSource:in:manager:)` and
/// `defaultCreateRelationships(forDestination:in:manager:)` (what a Core Data policy's `super` call does), the
/// others do nothing. A policy overrides what it needs, calling the default where Core Data's would call `super`.
///
/// For example, a policy that makes a `Color` for each migrated `Post` (as wibosco/CoreDataMigration-Example's
/// `Post2ToPost3MigrationPolicy` does):
/// ```swift
/// final class PostColorPolicy: EntityMigrationPolicy {
///     func createDestinationInstances(forSource source: ManagedObject, in mapping: EntityMapping,
///                                     manager: MigrationManager) throws {
///         try defaultCreateDestinationInstances(forSource: source, in: mapping, manager: manager)
///         let post = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [source])[0]
///         let color = try manager.destinationContext.insertNewObject(forEntityName: "Color")
///         try color.setValue(source.value(forKey: "hexColor"), forKey: "hex")
///         try post.setValue(color, forKey: "color")
///     }
/// }
/// var policies = EntityMigrationPolicies()
/// policies.register("Post2ToPost3MigrationPolicy") { PostColorPolicy() }
/// ```
/// A value expression calls a policy's own functions with `FUNCTION($entityPolicy, 'selector', arguments…)`; the
/// policy declares them in `expressionFunctions`.
/// - Note: Not thread-safe; the manager makes one instance per entity mapping and calls it on the migrating thread,
///   with both contexts' queues held.
public protocol EntityMigrationPolicy: AnyObject {
    /// Called before the mapping's first instance is created.
    func begin(_ mapping: EntityMapping, with manager: MigrationManager) throws
    /// Creates the destination instance(s) for one source instance, and associates them with it
    /// (`manager.associate(sourceInstance:withDestinationInstance:for:)`).
    func createDestinationInstances(
        forSource source: ManagedObject, in mapping: EntityMapping, manager: MigrationManager)
        throws
    /// Called once every source instance of the mapping has its destination instances.
    func endInstanceCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws
    /// Sets the relationships of one destination instance the mapping made.
    func createRelationships(
        forDestination destination: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws
    /// Called once every destination instance of the mapping has its relationships.
    func endRelationshipCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws
    /// Checks the mapping's destination instances before they are validated and saved.
    func performCustomValidation(forMapping mapping: EntityMapping, manager: MigrationManager) throws
    /// Called last, after validation.
    func end(_ mapping: EntityMapping, manager: MigrationManager) throws
    /// The functions a value expression calls with `FUNCTION($entityPolicy, 'selector', arguments…)`, by
    /// selector, each given its arguments' values.
    var expressionFunctions: [String: ([StoreValue]) throws -> StoreValue] { get }
}
