import Foundation

extension MigrationManager {
    // MARK: - Migrating a store file in place

    /// Migrates the store file at `url` from `sourceModel` to `destinationModel` with `mapping`, atomically: the
    /// migrated store is built beside it (`NAME.migrating`) and replaces it with one `rename(2)` only when complete.
    ///
    /// For example, one step of a bundle's history:
    /// ```swift
    /// let mapping = try MappingModel(contentsOf: mappingURL)
    /// let (from, to) = try mapping.versions(in: try ManagedObjectModel.versions(contentsOf: bundleURL))
    /// var policies = EntityMigrationPolicies()
    /// policies.register("Country5ToCountry6Policy") { ContinentPolicy() }
    /// try MigrationManager.migrateStore(
    ///     at: storeURL, type: .sqlite, from: from.model, to: to.model, mapping: mapping, policies: policies
    /// ) { print($0.phase, $0.fractionCompleted) }
    /// ```
    /// A process killed at any moment leaves the old store in place with every row (and the next migration deletes
    /// the partial file); a migration that fails leaves it as it was. The mapping model is checked and every
    /// policy found before anything is written. The new store keeps the old one's identifier, so object URIs stay
    /// valid. As `StoreMigrator` does, the migration holds the store's file lock exclusive from before it reads
    /// the store until the new one is in place, and refuses (`StoreError.locked`) while a store of this or another
    /// process has it open.
    /// - Parameters:
    ///   - url: the store file.
    ///   - type: a file store's type (`.sqlite`, `.lmdb`); an in-memory store migrates into another with
    ///     `migrateStore(from:type:options:mapping:to:type:options:progress:)`.
    ///   - sourceModel: the model the store was written with.
    ///   - destinationModel: the model the store must hold.
    ///   - mapping: the mapping model from `sourceModel` to `destinationModel`.
    ///   - policies: the Swift policies for the classes the mapping model names.
    ///   - options: store options for opening both stores.
    ///   - progress: called on this thread: `.preparing`, `.copying` through the mapping's three stages,
    ///     `.replacing` once the new store is complete, `.finished` once it is in place.
    /// - Returns: whether the store was migrated (false when it already holds `destinationModel`).
    /// - Throws: as `migrateStore(from:…)`; `StoreError(.incompatibleModel)` for a store not written with
    ///   `sourceModel`, `.unsupported` for a store that is not a file.
    @discardableResult
    public static func migrateStore(
        at url: URL, type: StoreType, from sourceModel: ManagedObjectModel, to destinationModel: ManagedObjectModel,
        mapping: MappingModel, policies: EntityMigrationPolicies = EntityMigrationPolicies(),
        options: [String: String] = [:], progress: (@Sendable (MigrationProgress) -> Void)? = nil
    ) throws -> Bool {
        guard type.fileOperations != nil, url.isFileURL else {
            throw StoreError(
                code: .unsupported,
                message: "\(type.name) stores are not files to migrate in place; migrate into another store with "
                    + "MigrationManager.migrateStore(from:type:options:mapping:to:type:options:progress:)", url: url)
        }
        let manager = MigrationManager(sourceModel: sourceModel, destinationModel: destinationModel, policies: policies)
        try manager.check(mapping)
        let temporary = URL(fileURLWithPath: url.path + ".migrating")
        guard let metadata = try type.metadataForStore(at: url) else {
            throw StoreError(code: .notAStore, message: "there is no store to migrate", url: url)
        }
        if metadata.matches(destinationModel, configuration: nil) {
            StoreFileLock.withSoleUse(of: url) { try? type.destroyStore(at: temporary) }
            return false
        }
        let differing = metadata.entitiesDiffering(from: sourceModel, configuration: nil)
        guard differing.isEmpty else {
            throw StoreError(
                code: .incompatibleModel,
                message: "the store was not written with the source model of \(mapping.name); entities that differ: "
                    + differing.joined(separator: ", "), url: url)
        }
        guard let lock = try StoreFileLock.exclusive(url) else {
            throw StoreError(code: .notAStore, message: "there is no store to migrate", url: url)
        }
        defer { lock.release() }
        // A partial file from a killed run is never resumed: its objects may stop anywhere.
        try type.destroyStore(at: temporary)
        var destinationOptions = options
        destinationOptions[StoreOpenRequest.storeIdentifierOption] = metadata.identifier
        let share = 0.95
        do {
            try manager.migrateStore(
                from: url, type: type, options: options, mapping: mapping, to: temporary, type: type,
                options: destinationOptions
            ) { inner in
                guard inner.phase != .finished else { return }
                var scaled = inner
                scaled.fractionCompleted = inner.fractionCompleted * share
                progress?(scaled)
            }
            progress?(MigrationProgress(phase: .replacing, fractionCompleted: share, completedRows: 0, totalRows: 0))
            try type.replaceStore(at: url, withStoreAt: temporary)
        } catch {
            try? type.destroyStore(at: temporary)
            throw error
        }
        progress?(MigrationProgress(phase: .finished, fractionCompleted: 1, completedRows: 0, totalRows: 0))
        return true
    }
}
