import Dispatch
import Foundation

extension PersistentContainer {
    // MARK: - Loading stores

    /// Opens every store of `persistentStoreDescriptions`, migrating those written with an earlier model, and
    /// calls `completionHandler` once per store with its description and the error, if it failed.
    ///
    /// A description with `shouldAddStoreAsynchronously` is loaded on a background queue: this returns at once
    /// and the handler runs later on that queue (hop to the main queue before touching `viewContext`). Without
    /// it the store is loaded on the caller's thread and the handler has run before this returns. Failures are
    /// delivered to the handler, never thrown.
    ///
    /// For example:
    /// ```swift
    /// container.loadPersistentStores { description, error in
    ///     if let error { print("\(description): \(error)") }
    /// }
    /// ```
    public func loadPersistentStores(
        completionHandler: @escaping @Sendable (StoreDescription, (any Error)?) -> Void
    ) {
        for description in persistentStoreDescriptions {
            if description.shouldAddStoreAsynchronously {
                DispatchQueue.global(qos: .userInitiated).async {
                    completionHandler(description, self.load(description))
                }
            } else {
                completionHandler(description, load(description))
            }
        }
    }

    /// Loads one store; returns the error instead of throwing it.
    private func load(_ description: StoreDescription) -> (any Error)? {
        do {
            try prepareLocation(of: description)
            try migrateIfNeeded(description)
            try persistentStoreCoordinator.addPersistentStore(
                type: description.type, configuration: description.configuration, at: description.url,
                options: description.options)
            return nil
        } catch {
            return error
        }
    }

    /// Creates the folder of a file store, as Core Data does for its default location.
    private func prepareLocation(of description: StoreDescription) throws {
        guard description.type.fileOperations != nil, description.url.isFileURL else { return }
        let folder = description.url.deletingLastPathComponent()
        guard !FileManager.default.fileExists(atPath: folder.path) else { return }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw StoreError(
                code: .ioFailure, message: "cannot create the store's folder \(folder.path)",
                url: description.url, detail: error.localizedDescription)
        }
    }

    private func migrateIfNeeded(_ description: StoreDescription) throws {
        let migrator = StoreMigrator(
            type: description.type, url: description.url, destinationModel: managedObjectModel,
            sourceModels: description.sourceModels, configurationName: description.configuration,
            options: description.options, batchSize: description.migrationBatchSize)
        guard description.type.fileOperations != nil, description.url.isFileURL else { return }
        let differing = try migrator.entitiesNeedingMigration()
        guard !differing.isEmpty else {
            migrator.discardLeftoverPartialFile()
            return
        }
        guard description.shouldMigrateStoreAutomatically, description.shouldInferMappingModelAutomatically else {
            let setting =
                description.shouldMigrateStoreAutomatically
                ? "shouldInferMappingModelAutomatically is off and there are no mapping models"
                : "shouldMigrateStoreAutomatically is off"
            throw StoreError(
                code: .incompatibleModel,
                message: "the store was written with another model and \(setting); entities that differ: "
                    + differing.joined(separator: ", ") + (migrator.changeSummary().map { " (\($0))" } ?? ""),
                url: description.url)
        }
        if let manager = description.stagedMigrationManager {
            try manager.migrateStore(
                type: description.type, at: description.url, to: managedObjectModel,
                configurationName: description.configuration,
                options: description.options, batchSize: description.migrationBatchSize,
                progress: description.migrationProgress)
            return
        }
        try migrator.migrateIfNeeded(progress: description.migrationProgress)
    }
}
