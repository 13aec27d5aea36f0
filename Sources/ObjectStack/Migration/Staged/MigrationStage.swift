/// One step of a staged migration (Core Data's `NSMigrationStage`): a `LightweightMigrationStage` or a
/// `CustomMigrationStage`, listed in a `StagedMigrationManager` in the order of the model versions.
public protocol MigrationStage: AnyObject, Sendable {
    /// The model versions the stage names, oldest first.
    var models: [ManagedObjectModel] { get }
    /// A name for progress reports and errors.
    var label: String { get }
}

/// Model versions that each migrate to the next by lightweight (inferred) migration (Core Data's
/// `NSLightweightMigrationStage`).
///
/// For example, versions 1, 2 and 3 whose differences are all lightweight:
/// ```swift
/// let early = LightweightMigrationStage([version1, version2, version3], label: "v1 to v3")
/// ```
public final class LightweightMigrationStage: MigrationStage {
    public let models: [ManagedObjectModel]
    public let label: String

    /// A stage over `models`, oldest first.
    public init(_ models: [ManagedObjectModel], label: String = "lightweight") {
        self.models = models
        self.label = label
    }
}
