import Foundation

/// Migrates a store file from the model that wrote it to a newer model, by building the new store beside
/// the old one and swapping it in only when complete (lightweight, inferred migration).
///
/// For example:
/// ```swift
/// let migrator = StoreMigrator(type: .sqlite, url: url, destinationModel: version2, sourceModels: [version1])
/// try migrator.migrateIfNeeded { progress in print(progress.fractionCompleted) }
/// ```
/// The old model is found among `sourceModels` by the entity version hashes the store recorded (Core Data
/// looks for it among the model versions of the app's bundle). Rows are copied at the store level, a batch per
/// write transaction, into `NAME.migrating` beside the store; the finished file then replaces the store with
/// one `rename(2)`. A process killed at any point leaves the old store in place and openable; a `.migrating`
/// file left by a killed run is deleted by the next attempt. A migration that fails deletes its partial file
/// and leaves the old store as it was.
///
/// In-memory stores are never migrated: their backing lives only as long as the process, and a shared backing
/// written with another model is refused when the store opens (`StoreError.incompatibleModel`).
/// A migration holds the store's `StoreFileLock` exclusive from before it reads the old store until the new one
/// is in place: when a store of this or another process has the store open, it refuses with
/// `StoreError.locked` before writing anything, and a store opening meanwhile waits briefly, then is refused.
/// - Note: Thread-safe: a second migration of the same store, here or in another process, is refused.
public struct StoreMigrator: Sendable {
    /// The store's type.
    public let type: StoreType
    /// The store's location.
    public let url: URL
    /// The model the store must hold after migrating.
    public let destinationModel: ManagedObjectModel
    /// Earlier versions of the model; the one whose version hashes match the store is migrated from.
    public let sourceModels: [ManagedObjectModel]
    /// The configuration the store holds, or nil for every entity.
    public let configurationName: String?
    /// Store options for opening both stores (`"synchronous"`, `"mapSize"`…).
    public let options: [String: String]
    /// Rows copied per write transaction.
    public let batchSize: Int

    /// Creates a migrator for the store at `url`.
    public init(
        type: StoreType, url: URL, destinationModel: ManagedObjectModel, sourceModels: [ManagedObjectModel],
        configurationName: String? = nil, options: [String: String] = [:], batchSize: Int = 10_000
    ) {
        self.type = type
        self.url = url
        self.destinationModel = destinationModel
        self.sourceModels = sourceModels
        self.configurationName = configurationName
        self.options = options
        self.batchSize = max(1, batchSize)
    }

    /// Where the new store is built before it replaces the old one.
    public var temporaryURL: URL { URL(fileURLWithPath: url.path + ".migrating") }

    /// The entities whose version hashes differ between the store and `destinationModel`; empty when the store
    /// needs no migration (or there is no store yet).
    /// - Throws: `StoreError` when the file cannot be read as a store of this type.
    public func entitiesNeedingMigration() throws -> [String] {
        guard type.fileOperations != nil, url.isFileURL, let metadata = try type.metadataForStore(at: url) else {
            return []
        }
        return metadata.entitiesDiffering(from: destinationModel, configuration: configurationName)
    }

    /// Deletes a `.migrating` file left by a killed migration, unless a store (of any process) has the store
    /// open, which may be a migration still running.
    public func discardLeftoverPartialFile() {
        guard type.fileOperations != nil, url.isFileURL,
            FileManager.default.fileExists(atPath: temporaryURL.path)
        else { return }
        if !FileManager.default.fileExists(atPath: url.path) {
            try? type.destroyStore(at: temporaryURL)
        } else {
            StoreFileLock.withSoleUse(of: url) { try? type.destroyStore(at: temporaryURL) }
        }
    }

    /// What differs, entity by entity, between the store's model (found among `sourceModels`) and
    /// `destinationModel`, in words; nil when no source model matches the store.
    func changeSummary() -> String? {
        guard let metadata = try? type.metadataForStore(at: url),
            let sourceModel = sourceModels.first(where: {
                metadata.matches($0, configuration: configurationName)
            })
        else { return nil }
        do {
            let plan = try MigrationPlan.infer(
                from: sourceModel, to: destinationModel, configuration: configurationName)
            return plan.changes.keys.sorted().map { "\($0): \(plan.changes[$0]!.joined(separator: "; "))" }
                .joined(separator: " | ")
        } catch let error as StoreError {
            return error.message
        } catch {
            return nil
        }
    }

    /// Migrates the store when it was written with another model; does nothing otherwise.
    ///
    /// - Parameter progress: called on this thread as the migration advances.
    /// - Returns: whether the store was migrated.
    /// - Throws: `StoreError`: `.incompatibleModel` when no source model matches the store or the mapping cannot
    ///   be inferred (listing the entities and why), `.migrationFailed` when the data cannot be carried over (a
    ///   required value missing, a new uniqueness constraint violated), `.locked` when a store of this or another
    ///   process has the store open, or the stores' own errors. The old store is left as it was, with no
    ///   `.migrating` file beside it.
    @discardableResult
    public func migrateIfNeeded(progress: (@Sendable (MigrationProgress) -> Void)? = nil) throws -> Bool {
        guard type.fileOperations != nil, url.isFileURL else { return false }
        // Decided before locking, so a change no lightweight migration covers is reported as such even while
        // another process has the store open.
        let needed: MigrationPlan?
        do {
            needed = try plan()
        } catch {
            discardLeftoverPartialFile()
            throw error
        }
        guard needed != nil else {
            discardLeftoverPartialFile()
            return false
        }
        // Held until the new store is in place: a process that has the old store open would lose what it writes
        // after the copy, and an LMDB reader would keep its map on a file the swap unlinks. Every store of this
        // library holds the lock shared while open, so taking it exclusive proves nobody has.
        guard let lock = try StoreFileLock.exclusive(url) else { return false }
        defer { lock.release() }
        // A partial file from a killed run is never resumed: its rows may stop anywhere.
        try type.destroyStore(at: temporaryURL)
        // Again under the lock: another process may have migrated the store in the meantime.
        guard let plan = try plan() else { return false }
        progress?(MigrationProgress(phase: .preparing, fractionCompleted: 0, completedRows: 0, totalRows: 0))
        if let inPlace = type.fileOperations?.migrateInPlace {
            let request = InPlaceMigration(
                url: url,
                difference: ModelDifference(from: plan.source, to: plan.destination, configuration: configurationName),
                configurationName: configurationName, options: options, progress: progress)
            if try inPlace(request) {
                progress?(MigrationProgress(phase: .finished, fractionCompleted: 1, completedRows: 0, totalRows: 0))
                return true
            }
        }
        do {
            try copy(plan, progress: progress)
            // Refused (a store opened meanwhile) or failed before the rename: the new file goes too.
            try type.replaceStore(at: url, withStoreAt: temporaryURL)
        } catch {
            try? type.destroyStore(at: temporaryURL)
            throw error
        }
        progress?(MigrationProgress(phase: .finished, fractionCompleted: 1, completedRows: 0, totalRows: 0))
        return true
    }

    /// The migration the store needs, nil when it needs none (or there is no store).
    /// - Throws: `StoreError(.incompatibleModel)` when no source model matches the store or a lightweight
    ///   migration does not cover the change.
    private func plan() throws -> MigrationPlan? {
        guard let metadata = try type.metadataForStore(at: url) else { return nil }
        let differing = metadata.entitiesDiffering(from: destinationModel, configuration: configurationName)
        guard !differing.isEmpty else { return nil }
        guard
            let sourceModel = sourceModels.first(where: {
                metadata.matches($0, configuration: configurationName)
            })
        else {
            throw StoreError(
                code: .incompatibleModel,
                message:
                    "the store was written with a model that is not among the \(sourceModels.count) source model(s) "
                    + "given for migration; entities that differ from the current model: \(differing.joined(separator: ", "))",
                url: url)
        }
        do {
            return try MigrationPlan.infer(from: sourceModel, to: destinationModel, configuration: configurationName)
        } catch let error as StoreError {
            throw StoreError(code: error.code, message: error.message, url: url)
        }
    }

    /// Writes the store's rows, migrated from `sourceModel` to `destinationModel`, into a new store at `target`,
    /// leaving this store as it is (a staged migration's first step, which works on a copy).
    /// - Throws: as `migrateIfNeeded`; a partial `target` is deleted.
    func migratedCopy(
        from sourceModel: ManagedObjectModel, to target: URL,
        progress: (@Sendable (MigrationProgress) -> Void)?
    ) throws {
        let plan: MigrationPlan
        do {
            plan = try MigrationPlan.infer(from: sourceModel, to: destinationModel, configuration: configurationName)
        } catch let error as StoreError {
            throw StoreError(code: error.code, message: error.message, url: url)
        }
        do {
            try copy(plan, into: target, progress: progress)
        } catch {
            try? type.destroyStore(at: target)
            throw error
        }
    }

    /// The share of the progress the copy takes; the rest is the swap.
    private static let copyShare = 0.95

    private func copy(
        _ plan: MigrationPlan, into target: URL? = nil, progress: (@Sendable (MigrationProgress) -> Void)?
    ) throws {
        let temporaryURL = target ?? temporaryURL
        let old = try scanning(
            type.open(
                StoreOpenRequest(
                    model: plan.source, configurationName: configurationName, url: url, options: options)))
        defer { old.close() }
        var newOptions = options
        newOptions[StoreOpenRequest.storeIdentifierOption] = old.identifier
        let new = try scanning(
            type.open(
                StoreOpenRequest(
                    model: plan.destination, configurationName: configurationName, url: temporaryURL,
                    options: newOptions)))
        defer { new.close() }

        var total = 0
        for copy in plan.copies {
            guard
                case .count(let count) = try old.execute(
                    StoreFetchRequest(
                        entity: copy.source, includesSubentities: false, resultType: .count))
            else { continue }
            total += count
        }
        var completed = 0
        let identifier = new.identifier
        for copy in plan.copies {
            var after: Int64 = 0
            while true {
                let rows = try old.rows(of: copy.source, after: after, limit: batchSize)
                guard let last = rows.last else { break }
                after = last.0.key
                var save = StoreSaveRequest()
                save.inserts.reserveCapacity(rows.count)
                for (id, row) in rows {
                    let values = try plan.values(for: copy, from: row, key: id.key, storeIdentifier: identifier)
                    save.inserts.append(
                        (
                            ManagedObjectID(
                                entity: copy.destination, storeIdentifier: identifier,
                                primaryKey: id.key), values
                        ))
                }
                for link in copy.links {
                    let related: [[ManagedObjectID]]
                    switch link.read {
                    case .related(let relationship):
                        related = try old.relatedObjectIDs(of: rows.map(\.0), through: relationship)
                    case .reference(let index):
                        related = rows.map { _, row in
                            guard case .objectID(let id) = row.value(at: index) else {
                                return []
                            }
                            return [id]
                        }
                    }
                    for (row, targets) in zip(save.inserts, related) {
                        for target in targets {
                            guard let other = plan.objectID(target, storeIdentifier: identifier) else { continue }
                            let (source, destination) = link.reversed ? (other, row.objectID) : (row.objectID, other)
                            save.insertedLinks.append(
                                StoreSaveRequest.Link(
                                    relationship: link.destinationOwner.storageKey, source: source,
                                    destination: destination))
                        }
                    }
                }
                try new.reserveKeys(through: after, for: copy.destination)
                do {
                    _ = try new.execute(save)
                } catch let error as StoreError where error.code == .constraintConflict {
                    var failure = StoreError(
                        code: .migrationFailed,
                        message:
                            "rows of \(copy.source.name) break a uniqueness constraint of \(copy.destination.name) in the "
                            + "new model: \(error.constraintConflicts.first.map(String.init(describing:)) ?? error.message)",
                        url: url)
                    failure.constraintConflicts = error.constraintConflicts
                    throw failure
                } catch let error as StoreError where error.code == .migrationFailed {
                    throw StoreError(code: error.code, message: error.message, url: url)
                }
                completed += rows.count
                progress?(
                    MigrationProgress(
                        phase: .copying,
                        fractionCompleted: min(
                            Self.copyShare, Self.copyShare * (Double(completed) / Double(max(total, completed, 1)))),
                        completedRows: completed, totalRows: max(total, completed), entityName: copy.destination.name))
            }
        }
        progress?(
            MigrationProgress(
                phase: .replacing, fractionCompleted: Self.copyShare, completedRows: completed,
                totalRows: max(total, completed)))
    }

    private func scanning(_ store: any PersistentStore) throws -> any StoreRowScanning {
        guard let scanning = store as? any StoreRowScanning else {
            store.close()
            throw StoreError(
                code: .unsupported, message: "\(type.name) stores cannot hand out their rows for migration",
                url: url)
        }
        return scanning
    }
}
