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
        try defaultCreateDestinationInstances(forSource: source, in: mapping, manager: manager)
        guard let name = source.value(forKey: "maker") as? String else { return }
        guard
            let car = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [source]).first
        else { throw PolicyFailure("\(mapping.name) made no car for \(source.objectID)") }
        let context = manager.destinationContext
        let maker =
            try context.registeredObjects.first {
                $0.entity.name == "Maker" && ($0.value(forKey: "name") as? String) == name
            }
            ?? {
                let made = try context.insertNewObject(forEntityName: "Maker")
                try made.setValue(name, forKey: "name")
                return made
            }()
        maker.addObject(car, toRelationship: "cars")
    }
}
