import Foundation
import ObjectStack
import Testing

/// Staged migration on every file store: lightweight steps and a custom stage whose handlers run app code on
/// the store between versions, progress, and a failed handler leaving the old store as it was.
@Suite("Staged migration")
struct StagedMigrationTests {
    static let fileKinds: [StoreType] = [.sqlite, .lmdb]

    /// Version 2 adds an optional `initial` to authors; version 3 makes it required, with "?" as the default an
    /// inferred migration gives rows without a value. `strict` leaves the default out, which no lightweight
    /// migration covers.
    static func version(_ number: Int, strict: Bool = false) throws -> ManagedObjectModel {
        guard number > 1 else { return try MigrationModels.base() }
        var changes = MigrationModels.Changes()
        changes.authorAttributes = [
            AttributeDescription(name: "name", type: .string, isOptional: false),
            AttributeDescription(name: "nickname", type: .string),
            AttributeDescription(name: "rating", type: .integer32),
            number == 2
                ? AttributeDescription(name: "initial", type: .string)
                : AttributeDescription(
                    name: "initial", type: .string, isOptional: false, defaultValue: strict ? .null : "?"),
        ]
        return try MigrationModels.make(changes)
    }

    /// A closed version-1 store with the seed data.
    private func versionOneStore(_ kind: StoreType) throws -> URL {
        let stack = try TestStack(kind, model: try MigrationModels.base())
        try MigrationModels.seed(stack.newContext())
        try stack.coordinator.remove(stack.store)
        return stack.location
    }

    /// Loads `url` at version 3 through a container with `manager`; returns the container or throws its error.
    private func load(
        _ kind: StoreType, _ url: URL, _ manager: StagedMigrationManager, model: ManagedObjectModel? = nil,
        progress: (@Sendable (MigrationProgress) -> Void)? = nil
    ) throws -> PersistentContainer {
        let container = PersistentContainer(name: "Staged", managedObjectModel: try model ?? Self.version(3))
        var description = StoreDescription(type: kind, url: url)
        description.stagedMigrationManager = manager
        description.migrationProgress = progress
        container.persistentStoreDescriptions = [description]
        let failure = LockedValue<(any Error)?>(nil)
        container.loadPersistentStores { _, error in failure.withLock { $0 = error } }
        if let error = failure.withLock({ $0 }) { throw error }
        return container
    }

    /// A custom stage from version 2 to 3 that fills every author's initial before the inferred step, and
    /// records what each handler saw.
    private func fillingStage(_ log: LockedValue<[String]>) throws -> CustomMigrationStage {
        let stage = CustomMigrationStage(migratingFrom: try Self.version(2), to: try Self.version(3), label: "initials")
        stage.willMigrateHandler = { manager, _ in
            let context = try manager.requireContainer().newBackgroundContext()
            try context.performAndWait { () throws in
                let authors = try context.fetch(FetchRequest<ManagedObject>(entityName: "Author"))
                for author in authors {
                    let name = author.value(forKey: "name") as? String ?? "?"
                    try author.setValue(String(name.suffix(1)), forKey: "initial")
                }
                try context.save()
                log.withLock { $0.append("will: \(authors.count) authors filled") }
            }
        }
        stage.didMigrateHandler = { manager, _ in
            let container = try manager.requireContainer()
            let required =
                container.managedObjectModel.entitiesByName["Author"]?.attributesByName["initial"]?.isOptional == false
            let context = container.newBackgroundContext()
            let missing = try context.performAndWait {
                try context.count(
                    for: {
                        var request = FetchRequest<ManagedObject>(entityName: "Author")
                        request.predicate = try FetchPredicate(format: "initial == nil")
                        return request
                    }())
            }
            log.withLock { $0.append("did: required \(required), \(missing) missing") }
        }
        return stage
    }

    @Test(
        "a custom stage's handlers run on the store between versions and carry it where inference cannot",
        arguments: fileKinds)
    func customStage(kind: StoreType) throws {
        let url = try versionOneStore(kind)
        let log = LockedValue<[String]>([])
        let reports = LockedValue<[MigrationProgress]>([])
        let manager = StagedMigrationManager([
            LightweightMigrationStage([try Self.version(1), try Self.version(2)]), try fillingStage(log),
        ])
        let container = try load(kind, url, manager) { progress in reports.withLock { $0.append(progress) } }
        // Without the handler an inferred step would have given every author the default, "?".
        #expect(log.withLock { $0 } == ["will: 12 authors filled", "did: required true, 0 missing"])
        #expect(manager.container == nil, "the handlers' container is closed afterwards")
        let context = container.newBackgroundContext()
        try context.performAndWait { () throws in
            var request = FetchRequest<ManagedObject>(entityName: "Author")
            request.sortDescriptors = [SortKey("name")]
            let authors = try context.fetch(request)
            #expect(authors.count == 12)
            #expect(
                authors.map { $0.value(forKey: "initial") as? String }
                    == authors.map { ($0.value(forKey: "name") as? String)?.suffix(1).description })
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Book")) == 24)
        }
        let fractions = reports.withLock { $0 }.map(\.fractionCompleted)
        #expect(fractions == fractions.sorted(), "progress never goes back")
        #expect(reports.withLock { $0.last }.map { $0.phase == .finished && $0.fractionCompleted == 1 } == true)
        #expect(!FileManager.default.fileExists(atPath: url.path + ".staged"))
    }

    @Test("a handler that throws, or a step inference cannot do, leaves the old store as it was", arguments: fileKinds)
    func failureLeavesOldStore(kind: StoreType) throws {
        struct HandlerFailure: Error {}
        let url = try versionOneStore(kind)
        let before = try Data(contentsOf: url)
        let log = LockedValue<[String]>([])
        let failing = try fillingStage(log)
        failing.didMigrateHandler = { _, _ in throw HandlerFailure() }
        #expect(throws: HandlerFailure.self) {
            try load(
                kind, url,
                StagedMigrationManager([
                    LightweightMigrationStage([try Self.version(1), try Self.version(2)]), failing,
                ]))
        }
        #expect(log.withLock { $0 } == ["will: 12 authors filled"], "the will handler ran, on the copy")
        // A step no lightweight migration covers (required without a default) is refused before anything is written.
        let error = try #require(throws: StoreError.self) {
            try load(
                kind, url,
                StagedMigrationManager([
                    LightweightMigrationStage([
                        try Self.version(1), try Self.version(2), try Self.version(3, strict: true),
                    ])
                ]), model: try Self.version(3, strict: true))
        }
        #expect(error.code == .incompatibleModel)
        #expect(try Data(contentsOf: url) == before, "the old store is untouched")
        #expect(
            try kind.metadataForStore(at: url)?.entitiesDiffering(from: Self.version(1), configuration: nil) == [])
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
            .filter { $0.hasPrefix(url.lastPathComponent + ".") }
        #expect(leftovers.isEmpty, "no working copy left: \(leftovers)")
    }
}
