import Foundation
import ObjectStack
import Testing

/// Lightweight migrations a file store makes inside its own file, rewriting no row (SQLite with `ALTER TABLE`,
/// LMDB by recording the layout of the rows already written): the rows written before read exactly as a
/// copying migration would have carried them over, on every file store. (In-memory stores are never migrated.)
@Suite("In-place migration")
struct InPlaceMigrationTests {
    static let fileKinds: [StoreType] = [.sqlite, .lmdb]

    /// Version 1 plus `Book.pages` (default 7; added before Book's to-one `author`, so old rows lack a field in
    /// the middle) and, from version 3, `Book.subtitle` (default "none") and `Author.country` (optional).
    private func model(_ version: Int, pagesDefault: Int64 = 7) throws -> ManagedObjectModel {
        var changes = MigrationModels.Changes()
        changes.bookAttributes =
            [
                AttributeDescription(name: "title", type: .string, isOptional: false),
                AttributeDescription(name: "isbn", type: .string),
                AttributeDescription(name: "pages", type: .integer32, defaultValue: .integer(pagesDefault)),
            ]
            + (version >= 3
                ? [AttributeDescription(name: "subtitle", type: .string, defaultValue: .string("none"))] : [])
        if version >= 3 {
            changes.authorAttributes = [
                AttributeDescription(name: "name", type: .string, isOptional: false),
                AttributeDescription(name: "nickname", type: .string),
                AttributeDescription(name: "rating", type: .integer32),
                AttributeDescription(name: "country", type: .string),
            ]
        }
        return try MigrationModels.make(changes)
    }

    /// A version-1 store with the seed data, closed again.
    private func versionOneStore(_ kind: StoreType) throws -> URL {
        let stack = try TestStack(kind, model: try MigrationModels.base())
        try MigrationModels.seed(stack.newContext())
        try stack.coordinator.remove(stack.store)
        return stack.location
    }

    /// Loads the store with `model`, migrating from `sources`; returns the container and whether a `.migrating`
    /// file (a copying migration's new store) existed at any progress report.
    private func load(_ kind: StoreType, _ url: URL, _ model: ManagedObjectModel, from sources: [ManagedObjectModel])
        throws -> (PersistentContainer, copied: Bool, reports: [MigrationProgress])
    {
        let container = PersistentContainer(name: "InPlace", managedObjectModel: model)
        var description = StoreDescription(type: kind, url: url)
        description.sourceModels = sources
        let copied = LockedValue(false)
        let reports = LockedValue<[MigrationProgress]>([])
        description.migrationProgress = { report in
            reports.withLock { $0.append(report) }
            if FileManager.default.fileExists(atPath: url.path + ".migrating") { copied.withLock { $0 = true } }
        }
        container.persistentStoreDescriptions = [description]
        let failure = LockedValue<(any Error)?>(nil)
        container.loadPersistentStores { _, error in failure.withLock { $0 = error } }
        if let error = failure.withLock({ $0 }) { throw error }
        return (container, copied.withLock { $0 }, reports.withLock { $0 })
    }

    private func close(_ container: PersistentContainer) throws {
        for store in container.persistentStoreCoordinator.persistentStores {
            try container.persistentStoreCoordinator.remove(store)
        }
    }

    /// Every book as `title|isbn|author|tags|pages|subtitle`, by title.
    private func books(_ container: PersistentContainer, subtitle: Bool = false) throws -> [String] {
        let context = container.newBackgroundContext()
        return try context.performAndWait { () throws in
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Book")).map { book in
                let author = (book.value(forKey: "author") as? ManagedObject)?.value(forKey: "name") as? String ?? "nil"
                let tags = (book.value(forKey: "tags") as? Set<ManagedObject> ?? []).compactMap {
                    $0.value(forKey: "label") as? String
                }
                return [
                    book.value(forKey: "title") as? String ?? "nil", book.value(forKey: "isbn") as? String ?? "nil",
                    author,
                    tags.sorted().joined(separator: ","), "\(book.value(forKey: "pages") ?? "nil")",
                    subtitle ? "\(book.value(forKey: "subtitle") ?? "nil")" : "-",
                ].joined(separator: "|")
            }.sorted()
        }
    }

    /// The books the seed wrote, as `books` prints them after `pages` (and `subtitle`) were added.
    private func seededBooks(pages: String = "7", subtitle: String = "-") -> [String] {
        (0..<12).flatMap { number in
            (0..<2).map { volume in
                [
                    "Book \(number)-\(volume)", "isbn-\(number)-\(volume)", "Author \(number)",
                    volume == 0 ? "classic,modern" : "", pages, subtitle,
                ].joined(separator: "|")
            }
        }.sorted()
    }

    @Test(
        "an added attribute is migrated without a copy: old rows keep every value and read the default",
        arguments: fileKinds)
    func addAttribute(kind: StoreType) throws {
        let url = try versionOneStore(kind)
        let (container, copied, reports) = try load(kind, url, try model(2), from: [try MigrationModels.base()])
        #expect(!copied, "the migration copied the rows into a new file")
        #expect(reports.last?.phase == .finished && reports.last?.fractionCompleted == 1.0)
        #expect(reports.contains { $0.phase == .copying && $0.totalRows >= 12 + 24 + 2 })
        #expect(try books(container) == seededBooks())
        let context = container.newBackgroundContext()
        try context.performAndWait { () throws in
            // A predicate and a sort on the new attribute read the default from the old rows.
            #expect(try context.count("Book", where: "pages == 7") == 24)
            // An old row updated and a new row inserted are written whole.
            var request = FetchRequest<ManagedObject>(entityName: "Book")
            request.predicate = try FetchPredicate(format: "title == %@", "Book 3-0")
            let book = try #require(try context.fetch(request).first)
            try book.setValue(Int32(300), forKey: "pages")
            let added = try context.insertNewObject(forEntityName: "Book")
            try added.setValue("New", forKey: "title")
            try added.setValue(book.value(forKey: "author"), forKey: "author")
            try context.save()
            #expect(try context.count("Book", where: "pages == 7") == 24)
            #expect(try context.count("Book", where: "pages == 300") == 1)
            #expect(try context.count("Book", where: "author.name == 'Author 3'") == 3)
            var sorted = FetchRequest<ManagedObject>(entityName: "Book")
            sorted.sortDescriptors = [SortKey("pages", ascending: false), SortKey("title")]
            sorted.fetchLimit = 2
            #expect(
                try context.fetch(sorted).map { $0.value(forKey: "title") as? String ?? "" } == [
                    "Book 3-0", "Book 0-0",
                ])
        }
        try close(container)
        // Reopened without a migration, the store reads the same.
        let (reopened, _, again) = try load(kind, url, try model(2), from: [])
        #expect(again.isEmpty)
        #expect(
            try books(reopened).filter { $0.hasPrefix("Book 5-") } == seededBooks().filter { $0.hasPrefix("Book 5-") })
        try close(reopened)
    }

    @Test(
        "two in-place migrations in a row, then a copying one, carry every row's values over",
        arguments: fileKinds)
    func migrationsCompose(kind: StoreType) throws {
        let url = try versionOneStore(kind)
        let (second, copiedSecond, _) = try load(kind, url, try model(2), from: [try MigrationModels.base()])
        #expect(!copiedSecond)
        let context = second.newBackgroundContext()
        try context.performAndWait { () throws in
            let book = try context.insertNewObject(forEntityName: "Book")
            try book.setValue("Between", forKey: "title")
            try book.setValue(Int32(5), forKey: "pages")
            try context.save()
        }
        try close(second)
        let (third, copiedThird, _) = try load(
            kind, url, try model(3),
            from: [try MigrationModels.base(), try model(2)])
        #expect(!copiedThird)
        let expected = (seededBooks(subtitle: "none") + ["Between|nil|nil||5|none"]).sorted()
        #expect(try books(third, subtitle: true) == expected)
        let authorContext = third.newBackgroundContext()
        let authors = try authorContext.performAndWait { () throws in
            try authorContext.count("Author", where: "country == nil AND name BEGINSWITH 'Author'")
        }
        #expect(authors == 12)
        try close(third)
        // A copying migration (a new index) reads the old rows through what the in-place ones recorded.
        var changes = MigrationModels.Changes()
        changes.bookAttributes = try model(3).entitiesByName["Book"]!.attributes.map {
            AttributeDescription(name: $0.name, type: $0.type, isOptional: $0.isOptional, defaultValue: $0.defaultValue)
        }
        changes.authorAttributes = try model(3).entitiesByName["Author"]!.attributes.map {
            AttributeDescription(name: $0.name, type: $0.type, isOptional: $0.isOptional, defaultValue: $0.defaultValue)
        }
        changes.bookIndexes = [IndexDescription(name: "byPages", attributeNames: ["pages"])]
        let (fourth, copiedFourth, _) = try load(
            kind, url, try MigrationModels.make(changes),
            from: [try MigrationModels.base(), try model(2), try model(3)])
        #expect(copiedFourth == (kind == .lmdb), "LMDB builds a new index by copying")
        #expect(try books(fourth, subtitle: true) == expected)
        try close(fourth)
    }

    @Test(
        "old rows keep the default the attribute had when it was added, as a copy would have written it",
        arguments: fileKinds)
    func defaultAtMigrationTime(kind: StoreType) throws {
        let url = try versionOneStore(kind)
        let (container, _, _) = try load(kind, url, try model(2), from: [try MigrationModels.base()])
        try close(container)
        // A default is not part of the version hash: the store opens with this model without migrating.
        let (later, _, reports) = try load(kind, url, try model(2, pagesDefault: 8), from: [])
        #expect(reports.isEmpty)
        #expect(try books(later) == seededBooks(pages: "7"))
        try close(later)
    }
}
