import Foundation

extension MigrationManager {
    // MARK: - Migrating

    /// The share of the progress each stage takes: creating instances, making relationships, validating and saving.
    private static let stageShares = (create: 0.6, relate: 0.25, save: 0.15)

    /// Migrates the store at `sourceURL` into the store at `destinationURL` with `mapping` (Core Data's
    /// `migrateStore(from:type:options:with:toDestinationURL:destinationType:destinationOptions:)`).
    ///
    /// For example, between two in-memory stores:
    /// ```swift
    /// let manager = MigrationManager(sourceModel: v1, destinationModel: v2)
    /// try manager.migrateStore(
    ///     from: URL(string: "memory://old")!, type: .inMemory, mapping: mapping,
    ///     to: URL(string: "memory://new")!, type: .inMemory)
    /// ```
    /// The source store is only read. The destination store is created (or opened: the objects are added to what it
    /// holds) and gets every destination object in one save. To replace a store file by its migrated form, use
    /// `migrateStore(at:type:from:to:mapping:policies:options:progress:)`, which does so atomically.
    /// - Parameters:
    ///   - sourceURL: the store to migrate, written with `sourceModel`.
    ///   - sourceType: its type.
    ///   - sourceOptions: store options for opening it.
    ///   - mapping: the mapping model from `sourceModel` to `destinationModel`.
    ///   - destinationURL: the store the migrated objects are saved into, created when there is none.
    ///   - destinationType: its type.
    ///   - destinationOptions: store options for opening it.
    ///   - progress: called on this thread: `.preparing`, then `.copying` through the three stages
    ///     (`MigrationProgress.mappingStage`), then `.finished`.
    /// - Throws: before anything is written, `ObjectStackError` (`.invalidMappingModel`, `.migrationPolicyMissing`)
    ///   for a mapping model that does not fit the models or names a policy nothing is registered under; the
    ///   stores' errors opening them (`StoreError.incompatibleModel` for a source store of another model);
    ///   `StoreError(.migrationFailed)` naming the mapping, property and object when a value does not fit or the
    ///   migrated objects do not validate; whatever a policy throws. A destination store the migration created is
    ///   deleted again when it fails.
    public func migrateStore(
        from sourceURL: URL, type sourceType: StoreType, options sourceOptions: [String: String] = [:],
        mapping: MappingModel, to destinationURL: URL, type destinationType: StoreType,
        options destinationOptions: [String: String] = [:],
        progress: (@Sendable (MigrationProgress) -> Void)? = nil
    ) throws {
        precondition(run == nil, "MigrationManager: a migration is already running on this manager")
        let (bound, policies) = try prepare(mapping)
        progress?(MigrationProgress(phase: .preparing, fractionCompleted: 0, completedRows: 0, totalRows: 0))
        let sourceCoordinator = PersistentStoreCoordinator(managedObjectModel: sourceModel)
        let sourceStore = try sourceCoordinator.addPersistentStore(
            type: sourceType, at: sourceURL, options: sourceOptions)
        defer { try? sourceCoordinator.remove(sourceStore) }
        let created =
            destinationType.fileOperations != nil && destinationURL.isFileURL
            && !FileManager.default.fileExists(atPath: destinationURL.path)
        let destinationCoordinator = PersistentStoreCoordinator(managedObjectModel: destinationModel)
        var destinationStore: (any PersistentStore)?
        do {
            destinationStore = try destinationCoordinator.addPersistentStore(
                type: destinationType, at: destinationURL, options: destinationOptions)
            let sourceContext = ManagedObjectContext(concurrencyType: .privateQueue)
            sourceContext.persistentStoreCoordinator = sourceCoordinator
            sourceContext.name = "migration source"
            let destinationContext = ManagedObjectContext(concurrencyType: .privateQueue)
            destinationContext.persistentStoreCoordinator = destinationCoordinator
            destinationContext.name = "migration destination"
            let run = MigrationRun(
                mapping: mapping, sourceContext: sourceContext, destinationContext: destinationContext, bound: bound,
                policies: policies, destinationModel: destinationModel)
            self.run = run
            userInfo = [:]
            defer { self.run = nil }
            try destinationContext.performAndWait {
                try sourceContext.performAndWait {
                    try runStages(run, progress: progress)
                }
            }
            if let destinationStore { try destinationCoordinator.remove(destinationStore) }
            destinationStore = nil
        } catch {
            if let destinationStore { try? destinationCoordinator.remove(destinationStore) }
            if created { try? destinationType.destroyStore(at: destinationURL) }
            throw error
        }
        progress?(MigrationProgress(phase: .finished, fractionCompleted: 1, completedRows: 0, totalRows: 0))
    }

    /// Core Data's three stages, on both contexts' queues.
    private func runStages(_ run: MigrationRun, progress: (@Sendable (MigrationProgress) -> Void)?) throws {
        var requests: [String: FetchRequest<ManagedObject>] = [:]
        var total = 0
        for bound in run.bound {
            guard let source = bound.mapping.sourceEntityName, bound.destination != nil else { continue }
            let request = try fetchRequest(
                forSourceEntityNamed: source,
                predicateString: bound.mapping.filterPredicate?.description ?? "TRUEPREDICATE")
            requests[bound.mapping.name] = request
            total += try run.sourceContext.count(for: request)
        }
        let shares = Self.stageShares
        func report(_ stage: MigrationProgress.MappingStage, _ fraction: Double, _ completed: Int, _ entity: String?) {
            run.fractionCompleted = fraction
            var report = MigrationProgress(
                phase: .copying, fractionCompleted: fraction, completedRows: completed, totalRows: total,
                entityName: entity)
            report.mappingStage = stage
            progress?(report)
        }

        // 1. Destination instances.
        var created = 0
        for bound in run.bound {
            let policy = run.policies[bound.mapping.name]!
            run.currentMapping = bound.mapping
            try policy.begin(bound.mapping, with: self)
            if let request = requests[bound.mapping.name] {
                for source in try run.sourceContext.fetch(request) {
                    try policy.createDestinationInstances(forSource: source, in: bound.mapping, manager: self)
                    created += 1
                    report(
                        .createDestinationInstances, shares.create * Double(created) / Double(max(total, 1)), created,
                        bound.destination?.name)
                }
            }
            try policy.endInstanceCreation(forMapping: bound.mapping, manager: self)
        }
        report(.createDestinationInstances, shares.create, created, nil)

        // 2. Relationships, for every instance each mapping made (a policy's own included).
        let made = run.bound.reduce(0) { $0 + (run.associations[$1.mapping.name]?.pairs.count ?? 0) }
        var related = 0
        for bound in run.bound {
            let policy = run.policies[bound.mapping.name]!
            run.currentMapping = bound.mapping
            for pair in run.associations[bound.mapping.name]?.pairs ?? [] {
                try policy.createRelationships(forDestination: pair.destination, in: bound.mapping, manager: self)
                related += 1
                report(
                    .createRelationships, shares.create + shares.relate * Double(related) / Double(max(made, 1)),
                    created, bound.destination?.name)
            }
            try policy.endRelationshipCreation(forMapping: bound.mapping, manager: self)
        }

        // 3. Validation: the policies' own checks, then the save, which validates every object, in one transaction.
        report(.validate, shares.create + shares.relate, created, nil)
        for bound in run.bound {
            run.currentMapping = bound.mapping
            try run.policies[bound.mapping.name]!.performCustomValidation(forMapping: bound.mapping, manager: self)
        }
        run.currentMapping = nil
        do {
            try run.destinationContext.save()
        } catch let error as ObjectStackError {
            throw failedSave(error, mapping: run.mapping)
        }
        for bound in run.bound {
            run.currentMapping = bound.mapping
            try run.policies[bound.mapping.name]!.end(bound.mapping, manager: self)
        }
        run.currentMapping = nil
        report(.validate, shares.create + shares.relate + shares.save, created, nil)
    }

    /// A failed save of the destination objects as a migration failure, with what did not validate or clashed.
    private func failedSave(_ error: ObjectStackError, mapping: MappingModel) -> StoreError {
        var detail = error.message
        if !error.validationFailures.isEmpty {
            detail = error.validationFailures.prefix(5).map(\.message).joined(separator: "; ")
            if error.validationFailures.count > 5 { detail += "; and \(error.validationFailures.count - 5) more" }
        } else if let cause = error.cause as? StoreError {
            detail = cause.message
        }
        var failure = StoreError(
            code: .migrationFailed,
            message: "\(mapping.name): the migrated objects could not be saved: \(detail)")
        failure.constraintConflicts = error.constraintConflicts
        return failure
    }
}
