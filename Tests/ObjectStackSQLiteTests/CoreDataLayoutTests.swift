import Foundation
import ObjectStack
import ObjectStackSQLite
import TestSupport
import Testing

/// The file a new SQLite store is: Core Data's layout, table by table and name by name.
@Suite("Core Data's layout in new stores")
struct CoreDataLayoutTests {
    /// Inheritance, a polymorphic to-one, an ordered to-many, a many-to-many with an ordered side, a to-many without
    /// an inverse, two sub-entities with one attribute name, a fetch index, a uniqueness constraint.
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Shelf", attributes: [AttributeDescription(name: "label", type: .string)],
                relationships: [
                    RelationshipDescription(
                        name: "items", destination: "Item", inverse: "shelf", isToMany: true, isOrdered: true),
                    RelationshipDescription(name: "favourite", destination: "Item"),
                    RelationshipDescription(name: "watchers", destination: "person", isToMany: true),
                ]),
            EntityDescription(
                name: "Item", isAbstract: true,
                attributes: [
                    AttributeDescription(name: "added", type: .date),
                    AttributeDescription(name: "price", type: .decimal),
                    AttributeDescription(name: "code", type: .string),
                ],
                relationships: [
                    RelationshipDescription(name: "shelf", destination: "Shelf", inverse: "items"),
                    RelationshipDescription(name: "people", destination: "person", inverse: "items", isToMany: true),
                ],
                uniquenessConstraints: [["code"]],
                indexes: [IndexDescription(name: "byAdded", attributeNames: ["added"])]),
            EntityDescription(
                name: "Book", parent: "Item", attributes: [AttributeDescription(name: "text", type: .string)]),
            EntityDescription(
                name: "Album", parent: "Item", attributes: [AttributeDescription(name: "text", type: .string)]),
            EntityDescription(
                name: "person", attributes: [AttributeDescription(name: "id", type: .uuid)],
                relationships: [
                    RelationshipDescription(
                        name: "items", destination: "Item", inverse: "people", isToMany: true, isOrdered: true)
                ]),
        ])
    }

    @Test("tables, columns, codes, join tables, indexes and metadata are Core Data's")
    func layout() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("layout-\(UUID().uuidString).sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try Self.model())
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        try coordinator.remove(store)
        let db = try SQLiteFile(url)
        func columns(_ table: String) -> [String] { db.texts("SELECT name FROM pragma_table_info('\(table)')") }
        // Codes: roots by name without case (Item, person, Shelf), each followed by its sorted sub-entities.
        #expect(
            db.rows("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT") == [
                ["1", "Item", "0", "0"], ["2", "Album", "1", "0"], ["3", "Book", "1", "0"], ["4", "person", "0", "0"],
                ["5", "Shelf", "0", "0"],
            ])
        // One table per root; a name two sub-entities share gets a suffix; the ordered to-many's position lives in
        // the destination's table; a to-one to a hierarchy has an entity-code column named after its code.
        #expect(
            Set(columns("ZITEM")) == [
                "Z_PK", "Z_ENT", "Z_OPT", "ZADDED", "ZPRICE", "ZCODE", "ZSHELF", "ZTEXT", "ZTEXT1", "Z_FOK_SHELF",
            ])
        #expect(Set(columns("ZSHELF")) == ["Z_PK", "Z_ENT", "Z_OPT", "ZLABEL", "ZFAVOURITE", "Z1_FAVOURITE"])
        #expect(
            db.texts("SELECT type FROM pragma_table_info('ZITEM') WHERE name IN ('ZADDED', 'ZPRICE') ORDER BY name")
                == ["TIMESTAMP", "DECIMAL"])
        // Many-to-many: named after side A (Item, code 1), A's keys in a column named after B's relationship; the
        // ordered side (person.items) orders its members' column.
        #expect(columns("Z_1PEOPLE") == ["Z_1ITEMS", "Z_4PEOPLE", "Z_FOK_1ITEMS"])
        #expect(
            db.texts("SELECT sql FROM sqlite_master WHERE name = 'Z_1PEOPLE'")[0].contains(
                "PRIMARY KEY (\"Z_1ITEMS\", \"Z_4PEOPLE\")"))
        #expect(
            db.texts(
                "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Z_1PEOPLE' AND sql IS NOT NULL")
                == ["Z_1PEOPLE_Z_4PEOPLE_INDEX"])
        // A to-many without an inverse (no real sample: ObjectStack's choice, documented).
        #expect(columns("Z_5WATCHERS") == ["Z_5SHELF", "Z_4WATCHERS"])
        let indexes = Set(db.texts("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"))
        #expect(
            indexes.isSuperset(of: [
                "ZITEM_Z_ENT_INDEX", "ZITEM_ZSHELF_INDEX", "ZSHELF_ZFAVOURITE_INDEX", "Z_Item_byAdded",
                "Z_Item_UNIQUE_code",
            ]))
        #expect(
            db.texts("SELECT sql FROM sqlite_master WHERE name = 'Z_Item_UNIQUE_code'")[0].hasPrefix(
                "CREATE UNIQUE INDEX"))
        #expect(db.texts("PRAGMA auto_vacuum") == ["2"])
        let plist = try #require(db.blobs("SELECT Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1").first ?? nil)
        let metadata = try #require(
            try PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any])
        #expect(metadata["NSStoreType"] as? String == "SQLite")
        #expect((metadata["NSStoreModelVersionHashes"] as? [String: Data])?.count == 5)
        #expect(metadata["ObjectStackWriter"] as? String == "ObjectStack")
        #expect(db.texts("SELECT Z_UUID FROM Z_METADATA") == [store.identifier])
    }

    @Test("saved objects land in their rows: codes, keys, dates since 2001, decimals as REAL, UUIDs as 16 bytes")
    func values() throws {
        let model = try Self.model()
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("values-\(UUID().uuidString).sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        let id = UUID()
        try context.performAndWait {
            let shelf = ManagedObject(entity: model.entitiesByName["Shelf"]!, insertInto: context)
            let album = ManagedObject(entity: model.entitiesByName["Album"]!, insertInto: context)
            try album.setValue(Date(timeIntervalSinceReferenceDate: 86_400), forKey: "added")
            try album.setValue(Decimal(string: "12.5"), forKey: "price")
            try album.setValue("a", forKey: "text")
            try shelf.setValue(album, forKey: "favourite")
            let person = ManagedObject(entity: model.entitiesByName["person"]!, insertInto: context)
            try person.setValue(id, forKey: "id")
            person.addObject(album, toRelationship: "items")
            try context.save()
        }
        let db = try SQLiteFile(url)
        // Album (code 2) comes before Book (3), so its `text` is ZTEXT and Book's ZTEXT1; a whole second of a date
        // reads back from its TIMESTAMP column as an integer.
        #expect(
            db.rows("SELECT Z_PK, Z_ENT, Z_OPT, ZADDED, ZPRICE, ZTEXT, ZTEXT1 FROM ZITEM") == [
                ["1", "2", "1", "86400", "12.5", "a", ""]
            ])
        #expect(db.texts("SELECT typeof(ZPRICE) FROM ZITEM") == ["real"])
        #expect(db.rows("SELECT ZFAVOURITE, Z1_FAVOURITE FROM ZSHELF") == [["1", "2"]])
        #expect(db.texts("SELECT length(ZID) FROM ZPERSON") == ["16"])
        #expect(db.rows("SELECT Z_1ITEMS, Z_4PEOPLE, Z_FOK_1ITEMS FROM Z_1PEOPLE") == [["1", "1", "2048"]])
        #expect(
            db.rows("SELECT Z_ENT, Z_MAX FROM Z_PRIMARYKEY WHERE Z_SUPER = 0 ORDER BY Z_ENT") == [
                ["1", "1"], ["4", "1"], ["5", "1"],
            ])
    }
}
