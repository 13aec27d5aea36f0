import Foundation
import ObjectStack
import Testing

/// Lightweight migration on every file store: what each inferred change does to the data, the errors for
/// changes that cannot be inferred, progress, and that a failure leaves the old store as it was.
@Suite("Lightweight migration")
struct MigrationTests {
    static let fileKinds: [StoreType] = [.sqlite, .lmdb]

    /// A version-1 store with the seed data, closed again.
    private func versionOneStore(_ kind: StoreType) throws -> URL {
        let stack = try TestStack(kind, model: try MigrationModels.base())
        try MigrationModels.seed(stack.newContext())
        try stack.coordinator.remove(stack.store)
        return stack.location
    }

    /// Loads the store at `url` with `model` through a container (synchronously) and returns the container, or
    /// throws the error the completion handler got.
    private func load(
        _ kind: StoreType, _ url: URL, model: ManagedObjectModel, sourceModels: [ManagedObjectModel],
        configure: (inout StoreDescription) -> Void = { _ in }
    ) throws -> PersistentContainer {
        let container = PersistentContainer(name: "Migration", managedObjectModel: model)
        var description = StoreDescription(type: kind, url: url)
        description.sourceModels = sourceModels
        configure(&description)
        container.persistentStoreDescriptions = [description]
        let failure = LockedValue<(any Error)?>(nil)
        container.loadPersistentStores { _, error in failure.withLock { $0 = error } }
        if let error = failure.withLock({ $0 }) { throw error }
        return container
    }

    private func values(_ container: PersistentContainer, _ entity: String, _ key: String) throws -> [String] {
        let context = container.newBackgroundContext()
        return try context.performAndWait { () throws in
            try context.fetch(FetchRequest<ManagedObject>(entityName: entity)).map {
                "\($0.value(forKey: key) ?? "nil")"
            }
        }
    }

    private func closeStores(_ container: PersistentContainer) throws {
        for store in container.persistentStoreCoordinator.persistentStores {
            try container.persistentStoreCoordinator.remove(store)
        }
    }

    private func bytes(_ url: URL) throws -> Data { try Data(contentsOf: url) }

    // MARK: - Inferred changes

    @Test(
        "adding an entity and an attribute keeps every row and relationship; the attribute takes its default",
        arguments: fileKinds)
    func addEntityAndAttribute(kind: StoreType) throws {
        let url = try versionOneStore(kind)
        var changes = MigrationModels.Changes()
        changes.authorAttributes = [
            AttributeDescription(name: "name", type: .string, isOptional: false),
            AttributeDescription(name: "nickname", type: .string),
            AttributeDescription(name: "rating", type: .integer32),
            AttributeDescription(name: "country", type: .string, isOptional: false, defaultValue: .string("unknown")),
        ]
        changes.extraEntities = [
            EntityDescription(
                name: "Publisher",
                attributes: [
                    AttributeDescription(name: "name", type: .string)
                ])
        ]
        let container = try load(
            kind, url, model: try MigrationModels.make(changes),
            sourceModels: [try MigrationModels.base()])
        let context = container.newBackgroundContext()
        try context.performAndWait { () throws in
            let authors = try context.fetch(FetchRequest<ManagedObject>(entityName: "Author"))
            #expect(authors.count == 12)
            #expect(authors.allSatisfy { $0.value(forKey: "country") as? String == "unknown" })
            #expect(
                Set(authors.map { $0.value(forKey: "name") as? String ?? "" }) == Set((0..<12).map { "Author \($0)" }))
            for author in authors {
                let name = author.value(forKey: "name") as? String ?? ""
                let titles = (author.value(forKey: "books") as? Set<ManagedObject> ?? []).map {
                    $0.value(forKey: "title") as? String ?? ""
                }
                let number = name.dropFirst("Author ".count)
                #expect(Set(titles) == ["Book \(number)-0", "Book \(number)-1"])
            }
            let tags = try context.fetch(FetchRequest<ManagedObject>(entityName: "Tag"))
            #expect(tags.map { ($0.value(forKey: "books") as? Set<ManagedObject> ?? []).count } == [12, 12])
            let publisher = try context.insertNewObject(forEntityName: "Publisher")
            try publisher.setValue("Gollancz", forKey: "name")
            try context.save()
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Publisher")) == 1)
        }
        try closeStores(container)
    }

    @Test(
        "renaming an entity, an attribute and a relationship through renaming identifiers keeps their values",
        arguments: fileKinds)
    func renames(kind: StoreType) throws {
        let url = try versionOneStore(kind)
        let before = try TestStack(kind, model: try MigrationModels.base(), location: url)
        let identifier = before.store.identifier
        try before.coordinator.remove(before.store)
        var changes = MigrationModels.Changes()
        changes.authorName = "Writer"
        changes.authorRenamingIdentifier = "Author"
        changes.authorAttributes = [
            AttributeDescription(name: "fullName", type: .string, isOptional: false, renamingIdentifier: "name"),
            AttributeDescription(name: "nickname", type: .string),
            AttributeDescription(name: "rating", type: .integer32),
        ]
        changes.bookAuthorName = "writer"
        changes.bookAuthorRenamingIdentifier = "author"
        let container = try load(
            kind, url, model: try MigrationModels.make(changes),
            sourceModels: [try MigrationModels.base()])
        let context = container.newBackgroundContext()
        try context.performAndWait { () throws in
            var request = FetchRequest<ManagedObject>(entityName: "Book")
            request.predicate = try FetchPredicate(format: "writer.fullName == %@", "Author 4")
            let books = try context.fetch(request)
            #expect(Set(books.map { $0.value(forKey: "title") as? String ?? "" }) == ["Book 4-0", "Book 4-1"])
            let writers = try context.fetch(FetchRequest<ManagedObject>(entityName: "Writer"))
            #expect(
                Set(writers.map { $0.value(forKey: "fullName") as? String ?? "" })
                    == Set((0..<12).map { "Author \($0)" }))
            #expect(writers.allSatisfy { $0.objectID.storeIdentifier == identifier })
        }
        try closeStores(container)
    }

    @Test("a removed attribute's values are gone: adding it back finds nil everywhere", arguments: fileKinds)
    func removeAttribute(kind: StoreType) throws {
        let url = try versionOneStore(kind)
        func withoutNickname() throws -> ManagedObjectModel {
            var changes = MigrationModels.Changes()
            changes.authorAttributes = [
                AttributeDescription(name: "name", type: .string, isOptional: false),
                AttributeDescription(name: "rating", type: .integer32),
            ]
            return try MigrationModels.make(changes)
        }
        let version2 = try withoutNickname()
        let container = try load(kind, url, model: version2, sourceModels: [try MigrationModels.base()])
        #expect(container.managedObjectModel.entitiesByName["Author"]?.attributesByName["nickname"] == nil)
        #expect(try values(container, "Author", "rating").filter { $0 != "nil" }.count == 8)
        try closeStores(container)
        var nicknameBack = MigrationModels.Changes()
        nicknameBack.authorAttributes = [
            AttributeDescription(name: "name", type: .string, isOptional: false),
            AttributeDescription(name: "rating", type: .integer32),
            AttributeDescription(name: "nickname", type: .string, versionHashModifier: "again"),
        ]
        let version3 = try load(
            kind, url, model: try MigrationModels.make(nicknameBack),
            sourceModels: [try MigrationModels.base(), try withoutNickname()])
        let nicknames = try values(version3, "Author", "nickname")
        #expect(nicknames.count == 12 && nicknames.allSatisfy { $0 == "nil" })
        try closeStores(version3)
    }

    @Test("an optional attribute made required with a default gives nil rows the default", arguments: fileKinds)
    func optionalToRequiredWithDefault(kind: StoreType) throws {
        let url = try versionOneStore(kind)
        var changes = MigrationModels.Changes()
        changes.authorAttributes = [
            AttributeDescription(name: "name", type: .string, isOptional: false),
            AttributeDescription(name: "nickname", type: .string),
            AttributeDescription(name: "rating", type: .integer32, isOptional: false, defaultValue: .integer(-1)),
        ]
        let container = try load(
            kind, url, model: try MigrationModels.make(changes),
            sourceModels: [try MigrationModels.base()])
        let ratings = try values(container, "Author", "rating").compactMap(Int.init).sorted()
        #expect(ratings == [-1, -1, -1, -1, 1, 2, 4, 5, 7, 8, 10, 11])
        try closeStores(container)
    }

    @Test("a new index is built and a new uniqueness constraint is enforced after migration", arguments: fileKinds)
    func indexAndConstraint(kind: StoreType) throws {
        let url = try versionOneStore(kind)
        var changes = MigrationModels.Changes()
        changes.bookIndexes = [IndexDescription(name: "byTitle", attributeNames: ["title"])]
        changes.bookConstraints = [["isbn"]]
        let container = try load(
            kind, url, model: try MigrationModels.make(changes),
            sourceModels: [try MigrationModels.base()])
        let context = container.newBackgroundContext()
        try context.performAndWait { () throws in
            var request = FetchRequest<ManagedObject>(entityName: "Book")
            request.predicate = try FetchPredicate(format: "title == %@", "Book 3-1")
            #expect(try context.fetch(request).count == 1)
            let duplicate = try context.insertNewObject(forEntityName: "Book")
            try duplicate.setValue("Another", forKey: "title")
            try duplicate.setValue("isbn-3-1", forKey: "isbn")
            #expect(throws: (any Error).self) { try context.save() }
            context.rollback()
        }
        try closeStores(container)
    }

    @Test("the migrated store keeps working: it reopens without migrating and takes new objects", arguments: fileKinds)
    func reopenAfterMigration(kind: StoreType) throws {
        let url = try versionOneStore(kind)
        func withPublisher() throws -> ManagedObjectModel {
            var changes = MigrationModels.Changes()
            changes.extraEntities = [
                EntityDescription(name: "Publisher", attributes: [AttributeDescription(name: "name", type: .string)])
            ]
            return try MigrationModels.make(changes)
        }
        let first = try load(kind, url, model: try withPublisher(), sourceModels: [try MigrationModels.base()])
        try closeStores(first)
        #expect(!FileManager.default.fileExists(atPath: url.path + ".migrating"))
        let progress = LockedValue<[MigrationProgress]>([])
        let second = try load(kind, url, model: try withPublisher(), sourceModels: []) { description in
            description.migrationProgress = { report in progress.withLock { $0.append(report) } }
        }
        #expect(progress.withLock { $0.isEmpty })
        let context = second.newBackgroundContext()
        try context.performAndWait { () throws in
            let author = try context.insertNewObject(forEntityName: "Author")
            try author.setValue("New", forKey: "name")
            try context.save()
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Author")) == 13)
            let keys = try context.fetch(FetchRequest<ManagedObject>(entityName: "Author")).compactMap(
                \.objectID.primaryKey)
            #expect(Set(keys).count == 13)
        }
        try closeStores(second)
    }

    // MARK: - Progress

    @Test("progress is reported in order, never goes back, and ends at 1.0", arguments: fileKinds)
    func progress(kind: StoreType) throws {
        let url = try versionOneStore(kind)
        var changes = MigrationModels.Changes()
        changes.bookIndexes = [IndexDescription(name: "byTitle", attributeNames: ["title"])]
        let reports = LockedValue<[MigrationProgress]>([])
        let container = try load(
            kind, url, model: try MigrationModels.make(changes),
            sourceModels: [try MigrationModels.base()]
        ) { description in
            description.migrationBatchSize = 5
            description.migrationProgress = { report in reports.withLock { $0.append(report) } }
        }
        let seen = reports.withLock { $0 }
        let fractions = seen.map(\.fractionCompleted)
        #expect(fractions.count > 5)
        #expect(zip(fractions, fractions.dropFirst()).allSatisfy { $0 <= $1 }, "\(seen)")
        #expect(fractions.last == 1.0 && seen.last?.phase == .finished)
        #expect(
            seen.contains { $0.phase == .copying && $0.completedRows == $0.totalRows && $0.totalRows == 12 + 24 + 2 })
        try closeStores(container)
    }

    // MARK: - Refusals and failures

    @Test(
        "a change that cannot be inferred is refused naming the entity and why; the store is untouched",
        arguments: fileKinds)
    func nonInferable(kind: StoreType) throws {
        let url = try versionOneStore(kind)
        let original = try bytes(url)
        var changes = MigrationModels.Changes()
        changes.authorAttributes = [
            AttributeDescription(name: "name", type: .string, isOptional: false),
            AttributeDescription(name: "nickname", type: .string),
            AttributeDescription(name: "rating", type: .string),
        ]
        changes.bookAttributes = [
            AttributeDescription(name: "title", type: .string, isOptional: false),
            AttributeDescription(name: "isbn", type: .string),
            AttributeDescription(name: "pages", type: .integer32, isOptional: false),
        ]
        let error = try #require(throws: StoreError.self) {
            _ = try load(
                kind, url, model: try MigrationModels.make(changes), sourceModels: [try MigrationModels.base()])
        }
        #expect(error.code == .incompatibleModel)
        #expect(error.message.contains("attribute Author.rating changes type from integer32 to string"))
        #expect(error.message.contains("attribute Book.pages is added as required without a default value"))
        #expect(try bytes(url) == original)
        _ = try TestStack(kind, model: try MigrationModels.base(), location: url)
    }

    @Test(
        "an attribute made required without a default is refused up front (Core Data's rule); the store stays",
        arguments: fileKinds)
    func requiredWithoutDefault(kind: StoreType) throws {
        let url = try versionOneStore(kind)
        let original = try bytes(url)
        var changes = MigrationModels.Changes()
        changes.authorAttributes = [
            AttributeDescription(name: "name", type: .string, isOptional: false),
            AttributeDescription(name: "nickname", type: .string, isOptional: false),
            AttributeDescription(name: "rating", type: .integer32),
        ]
        let error = try #require(throws: StoreError.self) {
            _ = try load(
                kind, url, model: try MigrationModels.make(changes), sourceModels: [try MigrationModels.base()])
        }
        #expect(error.code == .incompatibleModel)
        #expect(error.message.contains("attribute Author.nickname becomes required without a default value"))
        #expect(try bytes(url) == original)
        #expect(!FileManager.default.fileExists(atPath: url.path + ".migrating"))
        let old = try TestStack(kind, model: try MigrationModels.base(), location: url)
        #expect(try old.newContext().performAndWait { try old.newContext().count("Book") } == 24)
    }

    @Test("rows that break a new uniqueness constraint fail the migration; the old store stays", arguments: fileKinds)
    func constraintViolatedByData(kind: StoreType) throws {
        let url = try versionOneStore(kind)
        let original = try bytes(url)
        var changes = MigrationModels.Changes()
        changes.authorAttributes = [
            AttributeDescription(name: "name", type: .string, isOptional: false),
            AttributeDescription(name: "nickname", type: .string),
            AttributeDescription(name: "rating", type: .integer32, isOptional: false, defaultValue: .integer(0)),
        ]
        // The four authors without a rating all get the default 0, which the new constraint allows only once.
        changes.authorConstraints = [["rating"]]
        let error = try #require(throws: StoreError.self) {
            _ = try load(
                kind, url, model: try MigrationModels.make(changes), sourceModels: [try MigrationModels.base()])
        }
        #expect(error.code == .migrationFailed)
        #expect(error.message.contains("uniqueness constraint"))
        #expect(try bytes(url) == original)
    }

    @Test(
        "with automatic migration off, a store of an older model fails to load listing what differs",
        arguments: fileKinds)
    func migrationOff(kind: StoreType) throws {
        let url = try versionOneStore(kind)
        var changes = MigrationModels.Changes()
        changes.bookIndexes = [IndexDescription(name: "byTitle", attributeNames: ["title"])]
        let error = try #require(throws: StoreError.self) {
            _ = try load(
                kind, url, model: try MigrationModels.make(changes), sourceModels: [try MigrationModels.base()]
            ) {
                $0.shouldMigrateStoreAutomatically = false
            }
        }
        #expect(error.code == .incompatibleModel)
        #expect(error.message.contains("entities that differ: Book"))
        #expect(error.message.contains("index on Book (title) added"))
    }

    @Test(
        "a store whose model is not among the source models is refused naming the entities that differ",
        arguments: fileKinds)
    func noMatchingSourceModel(kind: StoreType) throws {
        let url = try versionOneStore(kind)
        var changes = MigrationModels.Changes()
        changes.dropsTags = true
        let error = try #require(throws: StoreError.self) {
            _ = try load(kind, url, model: try MigrationModels.make(changes), sourceModels: [])
        }
        #expect(error.code == .incompatibleModel)
        #expect(error.message.contains("entities that differ from the current model: Book, Tag"))
    }

    @Test(
        "a partial .migrating file left by a killed run is discarded and the migration completes",
        arguments: fileKinds)
    func leftoverPartialFile(kind: StoreType) throws {
        let url = try versionOneStore(kind)
        try Data(repeating: 0xAB, count: 10_000).write(to: URL(fileURLWithPath: url.path + ".migrating"))
        var changes = MigrationModels.Changes()
        changes.dropsTags = true
        let container = try load(
            kind, url, model: try MigrationModels.make(changes), sourceModels: [try MigrationModels.base()])
        #expect(try values(container, "Book", "title").count == 24)
        #expect(!FileManager.default.fileExists(atPath: url.path + ".migrating"))
        try closeStores(container)
    }
}
