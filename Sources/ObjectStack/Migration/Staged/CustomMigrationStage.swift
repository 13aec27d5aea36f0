import Foundation

/// A step between two model versions that runs the app's code around a lightweight migration (Core Data's
/// `NSCustomMigrationStage`): `willMigrateHandler` on the store at the source model, then the inferred
/// migration, then `didMigrateHandler` on the store at the destination model.
///
/// The handlers reach the store through `manager.container`, a container opened on the store being migrated
/// at the stage's current model; they use its contexts as an app would, and save. This is where the
/// migrations that are not lightweight go: splitting a field, back-filling a derived value, de-duplicating
/// before a uniqueness constraint arrives.
///
/// For example, filling a new required attribute from an old one:
/// ```swift
/// let stage = CustomMigrationStage(migratingFrom: version2, to: version3)
/// stage.didMigrateHandler = { manager, _ in
///     let context = try manager.requireContainer().newBackgroundContext()
///     try context.performAndWait {
///         for pod in try context.fetch(FetchRequest<ManagedObject>(entityName: "Pod")) {
///             try pod.setValue((pod.value(forKey: "name") as? String)?.lowercased(), forKey: "slug")
///         }
///         try context.save()
///     }
/// }
/// ```
/// A handler that throws stops the migration and leaves the store as it was before the whole staged migration.
public final class CustomMigrationStage: MigrationStage, @unchecked Sendable {
    // @unchecked: the handlers are set before the migration starts and only read while it runs, on one thread.

    /// What a handler gets: the manager (whose `container` is open on the store) and the stage itself.
    public typealias Handler = @Sendable (StagedMigrationManager, CustomMigrationStage) throws -> Void

    /// The model the stage migrates from.
    public let sourceModel: ManagedObjectModel
    /// The model the stage migrates to.
    public let destinationModel: ManagedObjectModel
    public let label: String
    /// Runs on the store at `sourceModel`, before the lightweight migration.
    public var willMigrateHandler: Handler?
    /// Runs on the store at `destinationModel`, after the lightweight migration.
    public var didMigrateHandler: Handler?

    public var models: [ManagedObjectModel] { [sourceModel, destinationModel] }

    /// A stage from `source` to `destination`.
    public init(migratingFrom source: ManagedObjectModel, to destination: ManagedObjectModel, label: String = "custom")
    {
        sourceModel = source
        destinationModel = destination
        self.label = label
    }
}
