import Foundation

/// How a container opens one store: its type, location, options, and whether it loads in the background and
/// migrates (Core Data's `NSPersistentStoreDescription`).
///
/// For example:
/// ```swift
/// var description = StoreDescription(type: .sqlite, url: storeURL)
/// description.shouldAddStoreAsynchronously = true
/// description.sourceModels = [version1]
/// description.migrationProgress = { progress in print(progress.fractionCompleted) }
/// container.persistentStoreDescriptions = [description]
/// ```
public struct StoreDescription: Sendable, CustomStringConvertible {
    /// The store's type.
    public var type: StoreType
    /// The store's location: a file URL for file stores, `memory://NAME` for a shared in-memory backing.
    public var url: URL
    /// The model configuration the store holds, or nil for every entity.
    public var configuration: String?
    /// Store options, by name (`"synchronous": "FULL"`, `"mapSize"`…), passed to the store.
    public var options: [String: String]
    /// Whether `loadPersistentStores` opens the store on a background queue and returns at once (the completion
    /// runs later, on that queue) instead of opening it on the caller's thread before returning. Default false,
    /// as in Core Data.
    public var shouldAddStoreAsynchronously = false
    /// Whether a store written with an earlier model is migrated when it loads. Default true, as in Core Data;
    /// when false such a store fails to load with `StoreError.incompatibleModel`.
    public var shouldMigrateStoreAutomatically = true
    /// Whether the migration's mapping may be inferred from the two models (lightweight migration). Default true;
    /// ObjectStack has no hand-written mapping models, so when false a store that needs migrating fails to load.
    public var shouldInferMappingModelAutomatically = true
    /// Earlier versions of the model, for migration: the one whose entity version hashes match the store is the
    /// model it is migrated from (Core Data looks in the app bundle's model versions).
    public var sourceModels: [ManagedObjectModel] = []
    /// Called on the loading thread as a migration advances, so a launch can show it.
    public var migrationProgress: (@Sendable (MigrationProgress) -> Void)?
    /// Rows a migration copies per write transaction.
    public var migrationBatchSize = 10_000
    /// Stages to migrate a store through, with the app's code between versions where a migration is not
    /// lightweight (Core Data's `NSPersistentStoreStagedMigrationManagerOptionKey`); nil for one inferred
    /// migration from the matching `sourceModels` entry.
    public var stagedMigrationManager: StagedMigrationManager?

    /// The option that turns persistent history on (Core Data's `NSPersistentHistoryTrackingKey`), value `"true"`.
    public static let persistentHistoryTrackingOption = "persistentHistoryTracking"
    /// The option that makes the coordinator post `PersistentStoreCoordinator.persistentStoreRemoteChange` for every
    /// write to the store (Core Data's `NSPersistentStoreRemoteChangeNotificationPostOptionKey`), value `"true"`.
    public static let remoteChangeNotificationPostOption = "remoteChangeNotificationPost"

    /// Whether saves and batch requests record persistent history in the store (Core Data's
    /// `NSPersistentHistoryTrackingKey`): the `persistentHistoryTracking` option.
    public var persistentHistoryTracking: Bool {
        get { options[Self.persistentHistoryTrackingOption] == "true" }
        set { options[Self.persistentHistoryTrackingOption] = newValue ? "true" : nil }
    }

    /// What a save promises across a power cut (the `durability` option); nil for the store's default (SQLite
    /// `normal`, LMDB `full`). An option value that is not a `Durability` reads as nil here; the store refuses it.
    public var durability: Durability? {
        get { options[Durability.option].flatMap { Durability(rawValue: $0.lowercased()) } }
        set { options[Durability.option] = newValue?.rawValue }
    }

    /// Whether the coordinator posts a remote change notification for every write to the store, by any context,
    /// coordinator or process (Core Data's `NSPersistentStoreRemoteChangeNotificationPostOptionKey`).
    public var remoteChangeNotificationPost: Bool {
        get { options[Self.remoteChangeNotificationPostOption] == "true" }
        set { options[Self.remoteChangeNotificationPostOption] = newValue ? "true" : nil }
    }

    /// Describes a store of `type` at `url`.
    public init(type: StoreType, url: URL, configuration: String? = nil, options: [String: String] = [:]) {
        self.type = type
        self.url = url
        self.configuration = configuration
        self.options = options
    }

    public var description: String {
        "\(type.name) store at \(url.isFileURL ? url.path : url.absoluteString)"
    }
}
