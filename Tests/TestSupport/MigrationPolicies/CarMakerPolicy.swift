import Foundation
import ObjectStack

/// What alemar11/CoreDataPlus's `V2to3MakerPolicy` does (Tests/Resources/SampleModel/MappingModels/
/// V2to3MakerPolicy.swift at f71b5f5, its first implementation), in Swift of our own: a migrated car whose source has
/// a `maker` name joins the `cars` of the `Maker` of that name, found among the makers the migration has made so far
/// or made now.
public final class CarMakerPolicy: EntityMigrationPolicy {
    /// A policy.
    public init() {}

    public func createDestinationInstances(
        forSource source: ManagedObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        let car = try defaultInstance(forSource: source, in: mapping, manager: manager)
        guard let name = source.value(forKey: "maker") as? String else { return }
        let maker = try manager.destinationContext.registeredOrInserted("Maker", where: "name", is: name)
        maker.addObject(car, toRelationship: "cars")
    }
}
