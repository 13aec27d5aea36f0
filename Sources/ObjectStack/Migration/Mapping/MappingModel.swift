import Foundation

/// How to migrate a store from one model version to the next when a lightweight migration does not cover the change
/// (Core Data's `NSMappingModel`): one ``EntityMapping`` per entity, each with a ``PropertyMapping`` per property.
///
/// For example, reading an Xcode mapping model and running it on a store:
/// ```swift
/// let mapping = try MappingModel(contentsOf: URL(fileURLWithPath: "Moody 2-Moody 3.xcmappingmodel"))
/// let versions = try ManagedObjectModel.versions(contentsOf: URL(fileURLWithPath: "Moody.xcdatamodeld"))
/// let (source, destination) = try mapping.versions(in: versions)
/// try MigrationManager.migrateStore(
///     at: storeURL, type: .sqlite, from: source.model, to: destination.model, mapping: mapping)
/// ```
/// A mapping model is read from an `.xcmappingmodel` bundle (``init(contentsOf:)``), the source Xcode edits, or
/// built in code. Reading fills in what Xcode leaves implicit until it compiles the model, as the compiled form
/// holds it: a mapping's name (`SourceToDestination`), its kind (see ``EntityMappingKind``), and the value
/// expressions of properties that have none: an attribute the source entity also has reads `$source.name`; a
/// relationship the source entity also has is filled with the destination objects made from its source objects
/// (`FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "MAPPING", $source.name)`, or
/// `destinationInstancesForSourceRelationshipNamed:` when the related entity has sub-entities, whose instances several
/// mappings make).
/// - Note: A value; safe to share between threads.
public struct MappingModel: Sendable, Hashable {
    /// The entity mappings, in the order the migration runs them.
    public var entityMappings: [EntityMapping]
    /// The `.xcmappingmodel` bundle the mapping model was read from, nil for one built in code.
    public var url: URL?
    /// The source model's path as the mapping model records it (`Migrations/Moody.xcdatamodeld/Moody 2.xcdatamodel`).
    public var sourceModelPath: String?
    /// The destination model's path as the mapping model records it.
    public var destinationModelPath: String?
    /// The names of the source model the mapping model was made for, from the copy it keeps.
    public var sourceOutline: ModelOutline?
    /// The names of the destination model the mapping model was made for, from the copy it keeps.
    public var destinationOutline: ModelOutline?
    /// What reading the file left out or filled in, one sentence each (a property mapping no entity mapping holds,
    /// a relationship no entity mapping can fill).
    public var notes: [String]

    /// A mapping model of `entityMappings`.
    public init(entityMappings: [EntityMapping]) {
        self.entityMappings = entityMappings
        self.notes = []
    }

    /// The mapping model's name: its bundle's, without the extension, or "mapping model" for one built in code.
    public var name: String {
        url.map { $0.deletingPathExtension().lastPathComponent } ?? "mapping model"
    }

    /// The entity mapping named `name`.
    public func entityMapping(named name: String) -> EntityMapping? {
        entityMappings.first { $0.name == name }
    }
}
