import Foundation
import ObjectStack
import ObjectStackSQLite
import TestSupport
import Testing

/// A store of ObjectStack's first SQLite layout (schema 1) is refused, never misread, and `LegacyStoreUpgrade`
/// rewrites it in Core Data's layout with every row, link and key.
@Suite("Stores of ObjectStack's first layout")
struct LegacyStoreUpgradeTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Author", attributes: [AttributeDescription(name: "name", type: .string, isOptional: false)],
                relationships: [
                    RelationshipDescription(name: "books", destination: "Book", inverse: "author", isToMany: true)
                ]),
            EntityDescription(
                name: "Book",
                attributes: [
                    AttributeDescription(name: "title", type: .string, isOptional: false),
                    AttributeDescription(name: "price", type: .decimal),
                ],
                relationships: [
                    RelationshipDescription(name: "author", destination: "Author", inverse: "books"),
                    RelationshipDescription(name: "tags", destination: "Tag", inverse: "books", isToMany: true),
                ]),
            EntityDescription(
                name: "Novel", parent: "Book", attributes: [AttributeDescription(name: "genre", type: .string)]),
            EntityDescription(
                name: "Tag", attributes: [AttributeDescription(name: "label", type: .string)],
                relationships: [
                    RelationshipDescription(name: "books", destination: "Book", inverse: "tags", isToMany: true)
                ]),
        ])
    }

    /// A file as ObjectStack's first layout wrote it: `Z_<Root>` tables with plain and entity-prefixed columns,
    /// codes by name within a hierarchy, a `J_…` join table, decimals as text, key/value metadata.
    static func legacyFile(_ model: ManagedObjectModel) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("legacy-\(UUID().uuidString).sqlite")
        try #require(FileManager.default.createFile(atPath: url.path, contents: nil))
        let db = try SQLiteFile(url)
        var statements = [
            "CREATE TABLE Z_METADATA (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
            "CREATE TABLE Z_PRIMARYKEY (root TEXT PRIMARY KEY, max INTEGER NOT NULL)",
            "CREATE TABLE \"Z_Author\" (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER NOT NULL, Z_OPT INTEGER NOT NULL, \"name\" TEXT)",
            "CREATE TABLE \"Z_Book\" (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER NOT NULL, Z_OPT INTEGER NOT NULL, "
                + "\"title\" TEXT, \"price\" TEXT, \"author\" INTEGER, \"Novel_genre\" TEXT)",
            "CREATE TABLE \"Z_Tag\" (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER NOT NULL, Z_OPT INTEGER NOT NULL, \"label\" TEXT)",
            "CREATE TABLE \"J_Book_tags\" (src INTEGER NOT NULL, dst INTEGER NOT NULL, UNIQUE (src, dst))",
            "INSERT INTO Z_PRIMARYKEY VALUES ('Author', 10), ('Book', 20), ('Tag', 30)",
            "INSERT INTO Z_METADATA VALUES ('uuid', 'C0FFEE00-0000-4000-8000-000000000001'), ('schemaVersion', '1')",
            "INSERT INTO Z_Author VALUES (1, 1, 3, 'Ursula')",
            // Book is code 1 and Novel 2 in their hierarchy (by name).
            "INSERT INTO Z_Book VALUES (1, 1, 1, 'Earthsea', '19.99', 1, NULL), (2, 2, 2, 'Lathe', '7.5', 1, 'sf')",
            "INSERT INTO Z_Tag VALUES (1, 1, 1, 'classic')",
            "INSERT INTO J_Book_tags VALUES (1, 1), (2, 1)",
        ]
        for entity in model.entities {
            statements.append("INSERT INTO Z_METADATA VALUES ('hash:\(entity.name)', '\(entity.versionHash)')")
        }
        for statement in statements { #expect(db.execute(statement) == 0, "\(statement)") }
        return url
    }

    @Test("opening one is refused, naming the command that upgrades it, and the file stays as it was")
    func refused() throws {
        let model = try Self.model()
        let url = try Self.legacyFile(model)
        let before = try Data(contentsOf: url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let error = try #require(throws: StoreError.self) { try coordinator.addPersistentStore(type: .sqlite, at: url) }
        #expect(error.description.contains("stacklab store upgrade"), "\(error)")
        #expect(try Data(contentsOf: url) == before)
    }

    @Test("the upgrade keeps every row, value, reference, link, key reservation and the store's UUID")
    func upgrade() throws {
        let model = try Self.model()
        let url = try Self.legacyFile(model)
        #expect(try LegacyStoreUpgrade(store: url, model: model).run() == 4)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        #expect(store.identifier == "C0FFEE00-0000-4000-8000-000000000001")
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            var request = FetchRequest<ManagedObject>(entityName: "Book")
            request.sortDescriptors = [SortKey("title")]
            let books = try context.fetch(request)
            #expect(books.map { $0.value(forKey: "title") as? String } == ["Earthsea", "Lathe"])
            #expect(books.map(\.entity.name) == ["Book", "Novel"])
            #expect(books[0].value(forKey: "price") as? Decimal == Decimal(string: "19.99"))
            #expect(books[1].value(forKey: "genre") as? String == "sf")
            let author = try #require(books[0].value(forKey: "author") as? ManagedObject)
            #expect(author.value(forKey: "name") as? String == "Ursula")
            #expect((author.value(forKey: "books") as? Set<ManagedObject>)?.count == 2)
            let tag = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Tag")).first)
            #expect((tag.value(forKey: "books") as? Set<ManagedObject>)?.count == 2)
            // New keys start after the reserved ones.
            let book = ManagedObject(entity: model.entitiesByName["Book"]!, insertInto: context)
            try book.setValue("New", forKey: "title")
            try context.save()
            #expect(book.objectID.primaryKey == 21)
        }
        let file = try SQLiteFile(url)
        #expect(file.texts("SELECT Z_OPT FROM ZAUTHOR") == ["3"])
        // Codes: Author 1, Book 2, Novel 3, Tag 4; the join table is named after side A, the lower code (Book).
        #expect(file.texts("SELECT COUNT(*) FROM Z_2TAGS") == ["2"])
        #expect(
            file.rows("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT") == [
                ["1", "Author", "0", "10"], ["2", "Book", "0", "21"], ["3", "Novel", "2", "0"],
                ["4", "Tag", "0", "30"],
            ])
        #expect(!FileManager.default.fileExists(atPath: url.path + ".upgrading"))
    }

    @Test("a store already in Core Data's layout is not upgraded: the error says there is nothing to do")
    func nothingToUpgrade() throws {
        let model = try Self.model()
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("new-\(UUID().uuidString).sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.remove(try coordinator.addPersistentStore(type: .sqlite, at: url))
        let error = try #require(throws: StoreError.self) { try LegacyStoreUpgrade(store: url, model: model).run() }
        #expect(error.description.contains("nothing to upgrade"), "\(error)")
    }
}
