import Foundation

/// Migrates a store through a sequence of model versions, stage by stage, running the app's code where a
/// stage is custom (Core Data's `NSStagedMigrationManager`, iOS 17).
///
/// The stages list the model versions in order; the manager finds the version the store was written with,
/// then takes each step from it to the container's model: lightweight (inferred) between versions of a
/// `LightweightMigrationStage` or between stages, and with the handlers of a `CustomMigrationStage` around
/// the inferred migration between its two versions. Give it to a store description:
/// ```swift
/// let stage = CustomMigrationStage(migratingFrom: version2, to: version3)
/// stage.didMigrateHandler = { manager, _ in /* back-fill through manager.requireContainer() */ }
/// description.stagedMigrationManager = StagedMigrationManager([
///     LightweightMigrationStage([version1, version2]), stage,
/// ])
/// ```
/// Every step runs on a copy of the store (`NAME.staged` beside it), which replaces the store with one
/// `rename(2)` only after the last step: a step that fails, a handler that throws or a process killed at any
/// point leaves the old store as it was (a leftover copy is deleted by the next attempt).
public final class StagedMigrationManager: Sendable {
    /// The stages, in the order of their model versions.
    public let stages: [any MigrationStage]
    private let current = LockedValue<PersistentContainer?>(nil)

    /// A manager over `stages`, oldest versions first.
    public init(_ stages: [any MigrationStage]) {
        self.stages = stages
    }

    /// While a custom stage's handler runs: a container open on the store being migrated, at the stage's
    /// current model (the source model in `willMigrateHandler`, the destination model in `didMigrateHandler`).
    /// Nil outside the handlers.
    public var container: PersistentContainer? { current.withLock { $0 } }

    /// `container`, or an error when called outside a handler.
    public func requireContainer() throws -> PersistentContainer {
        guard let container else {
            throw ObjectStackError(
                code: .invalidArgument,
                message: "StagedMigrationManager.container is only open while a custom stage's handler runs")
        }
        return container
    }

    /// The path of model versions the stages describe, ending with `destination`, without repeats.
    func versions(endingWith destination: ManagedObjectModel) -> [ManagedObjectModel] {
        var path: [ManagedObjectModel] = []
        for model in stages.flatMap(\.models) + [destination] where path.last.map({ !Self.same($0, model) }) ?? true {
            path.append(model)
        }
        return path
    }

    /// Whether two models have the same entity version hashes (the same version for a store).
    static func same(_ a: ManagedObjectModel, _ b: ManagedObjectModel) -> Bool {
        a.entityVersionHashesByName == b.entityVersionHashesByName
    }

    /// The custom stage from `source` to `destination`, if one is listed.
    private func customStage(from source: ManagedObjectModel, to destination: ManagedObjectModel)
        -> CustomMigrationStage?
    {
        stages.lazy.compactMap { $0 as? CustomMigrationStage }
            .first { Self.same($0.sourceModel, source) && Self.same($0.destinationModel, destination) }
    }

    /// Migrates the store at `url` to `destinationModel` when it was written with an earlier version of the
    /// stages; does nothing when it needs no migration.
    ///
    /// - Parameters:
    ///   - type: the store's type (a file store: an in-memory store is never migrated).
    ///   - url: the store's file.
    ///   - destinationModel: the version to migrate to, one of the stages' versions.
    ///   - configurationName: the model configuration the store holds, or nil for every entity.
    ///   - options: store options by name, for every store the migration opens.
    ///   - batchSize: rows per write transaction when a step copies the rows.
    ///   - progress: called on this thread; each step takes an equal share of `fractionCompleted`.
    /// - Returns: whether the store was migrated.
    /// - Throws: `StoreError` `.incompatibleModel` when the store's model is none of the stages' versions, the
    ///   stores' and the lightweight steps' errors, and whatever a handler throws. The old store is left as it was.
    @discardableResult
    public func migrateStore(
        type: StoreType, at url: URL, to destinationModel: ManagedObjectModel, configurationName: String? = nil,
        options: [String: String] = [:], batchSize: Int = 10_000,
        progress: (@Sendable (MigrationProgress) -> Void)? = nil
    ) throws -> Bool {
        guard type.fileOperations != nil, url.isFileURL else { return false }
        let work = URL(fileURLWithPath: url.path + ".staged")
        func migrator(_ destination: ManagedObjectModel, from source: ManagedObjectModel) -> StoreMigrator {
            StoreMigrator(
                type: type, url: work, destinationModel: destination, sourceModels: [source],
                configurationName: configurationName, options: options, batchSize: batchSize)
        }
        // A copy left by a killed run is never resumed.
        try type.destroyStore(at: migrator(destinationModel, from: destinationModel).temporaryURL)
        try type.destroyStore(at: work)
        guard let metadata = try type.metadataForStore(at: url),
            !metadata.matches(destinationModel, configuration: configurationName)
        else { return false }
        let path = versions(endingWith: destinationModel)
        guard
            let start = path.firstIndex(where: {
                metadata.matches($0, configuration: configurationName)
            })
        else {
            throw StoreError(
                code: .incompatibleModel,
                message:
                    "the store was written with a model that is none of the \(path.count) versions of the staged migration's "
                    + "stages (\(stages.map(\.label).joined(separator: ", ")))",
                url: url)
        }
        let steps = path.count - 1 - start
        @Sendable func report(_ step: Int, _ inner: MigrationProgress) {
            var scaled = inner
            scaled.fractionCompleted = (Double(step) + inner.fractionCompleted) / Double(steps)
            if step < steps - 1 || inner.phase != .finished {
                scaled.phase = inner.phase == .finished ? .copying : inner.phase
            }
            progress?(scaled)
        }
        progress?(MigrationProgress(phase: .preparing, fractionCompleted: 0, completedRows: 0, totalRows: 0))
        // The store itself is only read: the first step writes the working copy, through the stores.
        func original(to destination: ManagedObjectModel) -> StoreMigrator {
            StoreMigrator(
                type: type, url: url, destinationModel: destination, sourceModels: [],
                configurationName: configurationName, options: options, batchSize: batchSize)
        }
        do {
            for step in 0..<steps {
                let source = path[start + step]
                let destination = path[start + step + 1]
                let custom = customStage(from: source, to: destination)
                if let custom, let handler = custom.willMigrateHandler {
                    if step == 0 { try original(to: source).migratedCopy(from: source, to: work, progress: nil) }
                    try run(
                        handler, custom, type: type, url: work, model: source, configurationName: configurationName,
                        options: options)
                }
                if step == 0, !FileManager.default.fileExists(atPath: work.path) {
                    try original(to: destination).migratedCopy(from: source, to: work) { report(step, $0) }
                } else {
                    try migrator(destination, from: source).migrateIfNeeded { report(step, $0) }
                }
                if let custom, let handler = custom.didMigrateHandler {
                    try run(
                        handler, custom, type: type, url: work, model: destination,
                        configurationName: configurationName,
                        options: options)
                }
                report(step, MigrationProgress(phase: .finished, fractionCompleted: 1, completedRows: 0, totalRows: 0))
            }
            try type.replaceStore(at: url, withStoreAt: work)
        } catch {
            try? type.destroyStore(at: migrator(destinationModel, from: destinationModel).temporaryURL)
            try? type.destroyStore(at: work)
            throw error
        }
        progress?(MigrationProgress(phase: .finished, fractionCompleted: 1, completedRows: 0, totalRows: 0))
        return true
    }

    /// Runs a handler with `container` open on the working copy at `model`, and closes it afterwards.
    private func run(
        _ handler: CustomMigrationStage.Handler, _ stage: CustomMigrationStage, type: StoreType, url: URL,
        model: ManagedObjectModel, configurationName: String?, options: [String: String]
    ) throws {
        let container = PersistentContainer(name: "staged-migration", managedObjectModel: model, storeType: type)
        var description = StoreDescription(type: type, url: url, configuration: configurationName, options: options)
        description.shouldMigrateStoreAutomatically = false
        container.persistentStoreDescriptions = [description]
        let failure = LockedValue<(any Error)?>(nil)
        container.loadPersistentStores { _, error in failure.withLock { $0 = error } }
        if let error = failure.withLock({ $0 }) { throw error }
        current.withLock { $0 = container }
        defer {
            current.withLock { $0 = nil }
            for store in container.persistentStoreCoordinator.persistentStores {
                try? container.persistentStoreCoordinator.remove(store)
            }
        }
        try handler(self, stage)
    }
}
