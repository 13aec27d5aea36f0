import Foundation
import ObjectStack

/// What wibosco/CoreDataMigration-Example's `Post2ToPost3MigrationPolicy` does
/// (CoreDataMigration-Example/CoreData/Migration/Policies/Post2ToPost3MigrationPolicy.swift at 411d95c), in Swift
/// of our own: each migrated post gets a new `Color` whose `colorID` is a fresh UUID string and whose `hex` is the
/// source post's `hexColor`.
public final class PostColorPolicy: EntityMigrationPolicy {
    /// A policy.
    public init() {}

    public func createDestinationInstances(
        forSource source: ManagedObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        let post = try defaultInstance(forSource: source, in: mapping, manager: manager)
        let color = try manager.destinationContext.insertNewObject(forEntityName: "Color")
        try color.setValue(UUID().uuidString, forKey: "colorID")
        try color.setValue(source.value(forKey: "hexColor"), forKey: "hex")
        try post.setValue(color, forKey: "color")
    }
}
