import Foundation

extension EntityMigrationPolicy {
    // MARK: - Defaults

    /// Does nothing.
    public func begin(_ mapping: EntityMapping, with manager: MigrationManager) throws {}

    /// `defaultCreateDestinationInstances(forSource:in:manager:)`.
    public func createDestinationInstances(
        forSource source: ManagedObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        try defaultCreateDestinationInstances(forSource: source, in: mapping, manager: manager)
    }

    /// Does nothing.
    public func endInstanceCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {}

    /// `defaultCreateRelationships(forDestination:in:manager:)`.
    public func createRelationships(
        forDestination destination: ManagedObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        try defaultCreateRelationships(forDestination: destination, in: mapping, manager: manager)
    }

    /// Does nothing.
    public func endRelationshipCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {}

    /// Does nothing.
    public func performCustomValidation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {}

    /// Does nothing.
    public func end(_ mapping: EntityMapping, manager: MigrationManager) throws {}

    /// None.
    public var expressionFunctions: [String: ([StoreValue]) throws -> StoreValue] { [:] }

    /// What Core Data's `NSEntityMigrationPolicy` does for a source instance, which a policy's `super` call runs:
    /// inserts an instance of the destination entity into `manager.destinationContext`, sets each attribute whose
    /// mapping has a value expression to the expression's value for `source`, and associates the two.
    ///
    /// For example, a policy that adds to the default:
    /// ```swift
    /// try defaultCreateDestinationInstances(forSource: source, in: mapping, manager: manager)
    /// let created = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [source])
    /// ```
    /// - Throws: `StoreError(.migrationFailed)` naming the mapping, the attribute, the expression and the source
    ///   object when a value does not fit its attribute.
    public func defaultCreateDestinationInstances(
        forSource source: ManagedObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        try manager.createDestinationInstanceByDefault(forSource: source, in: mapping, policy: self)
    }

    /// What Core Data's `NSEntityMigrationPolicy` does for a destination instance, which a policy's `super` call
    /// runs: sets each relationship whose mapping has a value expression to the objects the expression gives (the
    /// first for a to-one), with `$source` the instance it was made from.
    /// - Throws: `StoreError(.migrationFailed)` naming the mapping, the relationship and the expression when the
    ///   objects do not fit the relationship.
    public func defaultCreateRelationships(
        forDestination destination: ManagedObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        try manager.createRelationshipsByDefault(forDestination: destination, in: mapping, policy: self)
    }
}
