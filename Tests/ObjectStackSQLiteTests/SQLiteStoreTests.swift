import CSQLite
import Foundation
import ObjectStack
import ObjectStackSQLite
import Testing

/// What only the SQLite store has: its file, its connection options, and its statement cache.
@Suite("SQLite store")
struct SQLiteStoreTests {
    static func model(extra: Bool = false) throws -> ManagedObjectModel {
        var attributes = [AttributeDescription(name: "name", type: .string, isOptional: false)]
        if extra { attributes.append(AttributeDescription(name: "colour", type: .string)) }
        return try ManagedObjectModel(entities: [
            EntityDescription(name: "Item", attributes: attributes, uniquenessConstraints: [["name"]]),
            EntityDescription(name: "Other", attributes: [AttributeDescription(name: "n", type: .integer64)]),
        ])
    }

    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sqlite-store-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A store file with `count` items, closed (so its WAL is checkpointed into the file).
    static func storeFile(items count: Int) throws -> URL {
        let url = try directory().appendingPathComponent("items.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try model())
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            for index in 0..<count {
                let item = ManagedObject(
                    entity: coordinator.managedObjectModel.entitiesByName["Item"]!, insertInto: context)
                try item.setValue("item \(index)", forKey: "name")
            }
            try context.save()
        }
        try coordinator.remove(store)
        return url
    }

    static func open(_ url: URL, model: ManagedObjectModel? = nil, options: [String: String] = [:]) throws
        -> SQLiteStore
    {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try model ?? Self.model())
        return try #require(
            try coordinator.addPersistentStore(type: .sqlite, at: url, options: options) as? SQLiteStore)
    }

    /// Expects opening `url` to fail with one of `codes` and to leave the file's bytes as they were.
    static func expectRefused(_ url: URL, _ codes: [StoreError.Code], model: ManagedObjectModel? = nil) throws
        -> StoreError
    {
        let before = try? Data(contentsOf: url)
        let error = try #require(throws: StoreError.self) { try open(url, model: model) }
        #expect(codes.contains(error.code), "\(error)")
        #expect(error.url == url && error.description.contains(url.path))
        #expect((try? Data(contentsOf: url)) == before, "a failed open must not modify the file")
        return error
    }

    @Test("a store file with a damaged first page is refused, untouched")
    func corrupt() throws {
        let url = try Self.storeFile(items: 10)
        var data = try Data(contentsOf: url)
        for index in 100..<min(data.count, 4_096) { data[index] = 0xA5 }
        try data.write(to: url)
        _ = try Self.expectRefused(url, [.corrupt, .notAStore])
    }

    @Test("another SQLite database is refused as not a store; a store of another model as incompatible")
    func foreignDatabases() throws {
        let url = try Self.storeFile(items: 3)
        let error = try Self.expectRefused(url, [.incompatibleModel], model: try Self.model(extra: true))
        #expect(error.message.contains("Item") && !error.message.contains("Other"))
        #expect(
            try Self.open(url).metadata.entityVersionHashes["Item"]
                == (try Self.model()).entitiesByName["Item"]?.versionHash)
    }

    @Test("synchronous is NORMAL by default and FULL on request; other values are refused")
    func synchronous() throws {
        let folder = try Self.directory()
        #expect(try Self.open(folder.appendingPathComponent("a.sqlite")).synchronousLevel() == 1)
        #expect(
            try Self.open(folder.appendingPathComponent("b.sqlite"), options: ["synchronous": "FULL"])
                .synchronousLevel() == 2)
        let error = try #require(throws: StoreError.self) {
            try Self.open(folder.appendingPathComponent("c.sqlite"), options: ["synchronous": "SOMETIMES"])
        }
        #expect(error.code == .invalidOption && error.message.contains("SOMETIMES"))
    }

    @Test("two coordinators on one file have their own connections and see each other's saves")
    func twoCoordinators() throws {
        let url = try Self.storeFile(items: 1)
        let model = try Self.model()
        let first = PersistentStoreCoordinator(managedObjectModel: model)
        let second = PersistentStoreCoordinator(managedObjectModel: model)
        let a = try first.addPersistentStore(type: .sqlite, at: url)
        let b = try second.addPersistentStore(type: .sqlite, at: url)
        #expect(a !== b && a.identifier == b.identifier)
        let writer = ManagedObjectContext(concurrencyType: .privateQueue)
        writer.persistentStoreCoordinator = first
        let reader = ManagedObjectContext(concurrencyType: .privateQueue)
        reader.persistentStoreCoordinator = second
        try writer.performAndWait {
            let item = ManagedObject(entity: model.entitiesByName["Item"]!, insertInto: writer)
            try item.setValue("from the first", forKey: "name")
            try writer.save()
        }
        let names = try reader.performAndWait {
            try reader.fetch(FetchRequest<ManagedObject>(entityName: "Item")).map {
                $0.value(forKey: "name") as? String
            }
        }
        #expect(names == ["item 0", "from the first"])
    }

    @Test("a save that fails leaves the file and the rows unchanged")
    func failedSave() throws {
        let url = try Self.storeFile(items: 5)
        let store = try Self.open(url)
        let entity = try #require(store.model.entitiesByName["Item"])
        let wal = URL(fileURLWithPath: url.path + "-wal")
        // Reserving keys commits on its own; the failed save comes after it.
        let ids = try store.newObjectIDs(for: entity, count: 2)
        let before = (try Data(contentsOf: url), try? Data(contentsOf: wal))
        var request = StoreSaveRequest()
        request.inserts = [(ids[0], [.string("fresh")]), (ids[1], [.string("item 3")])]
        let error = try #require(throws: StoreError.self) { try store.execute(request) }
        #expect(error.code == .constraintConflict)
        let conflict = try #require(error.constraintConflicts.first)
        #expect(conflict.conflictingObjectIDs == [ids[1]] && conflict.existingObjectID?.primaryKey == 4)
        guard case .count(let count) = try store.execute(StoreFetchRequest(entity: entity, resultType: .count)) else {
            Issue.record("expected a count")
            return
        }
        #expect(count == 5, "the valid insert of the failed save was rolled back too")
        #expect(try Data(contentsOf: url) == before.0)
        #expect((try? Data(contentsOf: wal)) == before.1, "nothing of the failed save reached the log")
    }

    @Test("an update at a known version writes only the columns it changes, as Core Data's does")
    func updateWritesChangedColumns() throws {
        let url = try Self.directory().appendingPathComponent("items.sqlite")
        let model = try Self.model(extra: true)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        let item = try context.performAndWait {
            let item = ManagedObject(entity: model.entitiesByName["Item"]!, insertInto: context)
            try item.setValue("first", forKey: "name")
            try item.setValue("red", forKey: "colour")
            try context.save()
            return item
        }
        // Another writer changes the colour without moving the row's version: a save that wrote every column
        // would put back the red it read.
        var db: OpaquePointer?
        #expect(sqlite3_open(url.path, &db) == SQLITE_OK)
        defer { sqlite3_close(db) }
        #expect(sqlite3_exec(db, "UPDATE ZITEM SET ZCOLOUR = 'blue'", nil, nil, nil) == SQLITE_OK)
        try context.performAndWait {
            try item.setValue("second", forKey: "name")
            try context.save()
        }
        var statement: OpaquePointer?
        #expect(sqlite3_prepare_v2(db, "SELECT ZNAME, ZCOLOUR, Z_OPT FROM ZITEM", -1, &statement, nil) == SQLITE_OK)
        defer { sqlite3_finalize(statement) }
        #expect(sqlite3_step(statement) == SQLITE_ROW)
        #expect(String(cString: sqlite3_column_text(statement, 0)) == "second")
        #expect(String(cString: sqlite3_column_text(statement, 1)) == "blue")
        #expect(sqlite3_column_int64(statement, 2) == 2, "the update still moves the version")
    }

    @Test("a repeated query reuses its prepared statement")
    func statementCache() throws {
        let url = try Self.storeFile(items: 3)
        let store = try Self.open(url)
        let entity = try #require(store.model.entitiesByName["Item"])
        let request = StoreFetchRequest(entity: entity, fetchLimit: 2)
        _ = try store.execute(request)
        let first = try store.statementCacheStatistics()
        for _ in 0..<5 { _ = try store.execute(request) }
        let after = try store.statementCacheStatistics()
        #expect(after.prepared == first.prepared, "no new statement compiled")
        #expect(after.reused >= first.reused + 5)
    }
}
