import CSQLite
import Foundation
import ObjectStack
import ObjectStackSQLite
import Testing

/// Attribute-level lightweight migrations change a SQLite store's tables in place, in one transaction; other
/// changes still copy the rows into a new file.
@Suite("SQLite migration in place")
struct SQLiteInPlaceMigrationTests {
    /// Version 1: books with a title, a blurb and a year. Version 2: `blurb` renamed `summary`, `year` gone,
    /// `pages` (default 100) and `rating` (default 2.5) added, an index on `pages`.
    static func model(version: Int) throws -> ManagedObjectModel {
        let attributes: [AttributeDescription] =
            version == 1
            ? [
                AttributeDescription(name: "title", type: .string, isOptional: false),
                AttributeDescription(name: "blurb", type: .string),
                AttributeDescription(name: "year", type: .integer32),
            ]
            : [
                AttributeDescription(name: "title", type: .string, isOptional: false),
                AttributeDescription(name: "summary", type: .string, renamingIdentifier: "blurb"),
                AttributeDescription(name: "pages", type: .integer32, defaultValue: 100),
                AttributeDescription(name: "rating", type: .double, defaultValue: 2.5),
            ]
        return try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Book", attributes: attributes,
                indexes: version == 1 ? [] : [IndexDescription(name: "byPages", attributeNames: ["pages"])])
        ])
    }

    private func inode(_ url: URL) throws -> UInt64 {
        (try FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0
    }

    @Test("renamed, added and removed attributes and a new index: the same file, every value carried over")
    func attributeChanges() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sqlite-in-place-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("books.sqlite")
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try Self.model(version: 1))
            let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait { () throws in
                for index in 0..<50 {
                    let book = try context.insertNewObject(forEntityName: "Book")
                    try book.setValue("Book \(index)", forKey: "title")
                    try book.setValue(index % 2 == 0 ? "blurb \(index)" : nil, forKey: "blurb")
                    try book.setValue(1900 + index, forKey: "year")
                }
                try context.save()
            }
            try coordinator.remove(store)
        }
        let before = try inode(url)
        let reports = LockedValue<[MigrationProgress]>([])
        let migrator = StoreMigrator(
            type: .sqlite, url: url, destinationModel: try Self.model(version: 2),
            sourceModels: [try Self.model(version: 1)])
        #expect(try migrator.migrateIfNeeded { progress in reports.withLock { $0.append(progress) } })
        #expect(try inode(url) == before, "migrated in place, not copied into a new file")
        #expect(!FileManager.default.fileExists(atPath: migrator.temporaryURL.path))
        #expect(
            reports.withLock { $0.contains { $0.phase == .copying && $0.completedRows == 50 && $0.totalRows == 50 } })

        let coordinator = PersistentStoreCoordinator(managedObjectModel: try Self.model(version: 2))
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        defer { try? coordinator.remove(store) }
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait { () throws in
            var request = FetchRequest<ManagedObject>(entityName: "Book")
            request.predicate = try FetchPredicate(format: "pages == 100 AND rating == 2.5")
            let books = try context.fetch(request)
            #expect(books.count == 50, "the added attributes read their defaults")
            #expect(
                books.map { $0.value(forKey: "summary") as? String }
                    == (0..<50).map { $0 % 2 == 0 ? "blurb \($0)" : nil })
            let book = try #require(books.first)
            try book.setValue(7, forKey: "pages")
            try context.save()
            #expect(try context.count(for: request) == 49, "the new column is written like any other")
        }
        // The file's schema is the new model's: no `year` column, an index on `pages`.
        var db: OpaquePointer?
        #expect(sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK)
        defer { sqlite3_close_v2(db) }
        func strings(_ sql: String) -> [String] {
            var statement: OpaquePointer?
            sqlite3_prepare_v2(db, sql, -1, &statement, nil)
            defer { sqlite3_finalize(statement) }
            var result: [String] = []
            while sqlite3_step(statement) == SQLITE_ROW {
                result.append(String(cString: sqlite3_column_text(statement, 0)))
            }
            return result
        }
        #expect(
            Set(strings("SELECT name FROM pragma_table_info('ZBOOK')")) == [
                "Z_PK", "Z_ENT", "Z_OPT", "ZTITLE", "ZSUMMARY", "ZPAGES", "ZRATING",
            ])
        #expect(strings("SELECT name FROM pragma_index_list('ZBOOK')").contains { $0.contains("byPages") })
    }
}
