import CSQLite
import Foundation
import ObjectStack
import ObjectStackSQLite
import TestSupport
import Testing

/// The store files Core Data wrote (`shared/coredata-stores`): each is matched to the version of its bundle that
/// wrote it, opens with that version's model, and reads every row SQL counts in it.
@Suite("Store files Core Data wrote", .enabled(if: CoreDataStoreCorpus.shared != nil, "no shared/coredata-stores"))
struct CoreDataStoreFileTests {
    static let stores = CoreDataStoreCorpus.shared?.stores ?? []

    /// The versions of a store's bundle, loaded once per bundle.
    static func versions(of store: CoreDataStoreCorpus.Store) throws -> [ModelVersion] {
        try ManagedObjectModel.versions(contentsOf: try #require(store.bundle))
    }

    @Test("the corpus lists 28 stores, and every one is there")
    func corpus() throws {
        #expect(Self.stores.count == 28)
        for store in Self.stores {
            #expect(FileManager.default.fileExists(atPath: store.url.path), "\(store)")
        }
    }

    @Test("each store is matched to the version that wrote it", arguments: stores.filter { $0.bundle != nil })
    func matchesItsVersion(_ store: CoreDataStoreCorpus.Store) throws {
        let copy = try store.copy()
        let file = try CoreDataStoreFile(url: copy)
        #expect(file.cachedModel != nil, "\(store)")
        #expect(file.frameworkVersion == store.frameworkVersion, "\(store)")
        let match = try file.matchVersion(in: try Self.versions(of: store))
        #expect(match.equalVersions.contains(try #require(store.versionName)), "\(store): \(match.reason)")
        #expect(match.version.name == store.versionName, "\(store): \(match.reason)")
    }

    @Test(
        "a store of a model built in code opens with the model its cache describes",
        arguments: stores.filter {
            $0.bundle == nil
        })
    func codeBuiltModel(_ store: CoreDataStoreCorpus.Store) throws {
        let copy = try store.copy()
        let file = try CoreDataStoreFile(url: copy)
        let model = try #require(file.cachedModel)
        #expect(!model.entities.isEmpty)
        try expectEveryRowReads(copy, model: model, store: store)
    }

    @Test(
        "each store opens with its version's model and every row reads",
        arguments: stores.filter {
            $0.bundle != nil
        })
    func opensAndReads(_ store: CoreDataStoreCorpus.Store) throws {
        let copy = try store.copy()
        let match = try CoreDataStoreFile(url: copy).matchVersion(in: try Self.versions(of: store))
        try expectEveryRowReads(copy, model: match.version.model, store: store)
    }

    /// Opens the store and fetches every entity: as many objects as SQL counts rows of that entity, each with its
    /// stored values readable.
    func expectEveryRowReads(_ url: URL, model: ManagedObjectModel, store: CoreDataStoreCorpus.Store) throws {
        let expected = try Self.rowsByEntity(url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        var total = 0
        try context.performAndWait {
            for entity in model.entities where !entity.isAbstract {
                var request = FetchRequest<ManagedObject>(entityName: entity.name)
                request.includesSubentities = false
                let objects = try context.fetch(request)
                // Z_PRIMARYKEY keeps the name an entity had before a migration renamed it.
                let rows = expected[entity.name] ?? entity.renamingIdentifier.flatMap { expected[$0] } ?? 0
                #expect(objects.count == rows, "\(store): \(entity.name)")
                total += objects.count
                for object in objects.prefix(50) {
                    for attribute in entity.attributes where !attribute.isTransient {
                        _ = object.value(forKey: attribute.name)
                    }
                }
            }
        }
        #expect(total == store.entityRows, "\(store)")
    }

    /// Rows per entity, counted with SQL (`SQLiteFile.rowsByEntity`).
    static func rowsByEntity(_ url: URL) throws -> [String: Int] { try SQLiteFile(url).rowsByEntity() }
}

/// Writing into a store Core Data wrote keeps it a store Core Data opens as the same version: its metadata and
/// model cache byte for byte, its schema unchanged, `Z_MAX` at or above every key, new rows with the right `Z_ENT`.
@Suite("Writing into store files Core Data wrote", .enabled(if: CoreDataStoreCorpus.shared != nil, "no corpus"))
struct CoreDataStoreWriteTests {
    /// The stores ObjectStack writes to (those with Core Data's persistent history open read-only).
    static let writable = CoreDataStoreFileTests.stores.filter { !$0.features.contains("persistent-history") }

    /// What must not change when ObjectStack writes: the metadata plist, the model cache, every schema statement.
    struct Bookkeeping: Equatable {
        var plist: Data
        var modelCache: Data?
        var schema: [String]
    }

    static func bookkeeping(_ url: URL) throws -> Bookkeeping {
        let db = try SQLiteFile(url)
        return Bookkeeping(
            plist: try #require(db.blobs("SELECT Z_PLIST FROM Z_METADATA").first ?? nil),
            modelCache: db.blobs("SELECT Z_CONTENT FROM Z_MODELCACHE").first ?? nil,
            schema: db.texts("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name"))
    }

    static func model(for store: CoreDataStoreCorpus.Store, at url: URL) throws -> ManagedObjectModel {
        let file = try CoreDataStoreFile(url: url)
        guard store.bundle != nil else { return try #require(file.cachedModel) }
        return try file.matchVersion(in: try CoreDataStoreFileTests.versions(of: store)).version.model
    }

    @Test("an insert per entity and an update save, and reopen as the same store", arguments: writable)
    func roundTrip(_ store: CoreDataStoreCorpus.Store) throws {
        let url = try store.copy()
        let model = try Self.model(for: store, at: url)
        let before = try Self.bookkeeping(url)
        let rowsBefore = try CoreDataStoreFileTests.rowsByEntity(url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let added = try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        var inserted: [String: ManagedObjectID] = [:]
        try context.performAndWait {
            for entity in model.entities where !entity.isAbstract {
                let object = ManagedObject(entity: entity, insertInto: context)
                do {
                    try SampleValues.fill(object, in: context)
                    try context.save()
                    inserted[entity.name] = object.objectID
                } catch {
                    // An entity whose rules a generic value cannot meet (a required to-many, say) is left out.
                    context.rollback()
                }
            }
            // An update of an existing row: its version moves by one.
            var request = FetchRequest<ManagedObject>(entityName: try #require(inserted.keys.sorted().first))
            request.fetchLimit = 1
            if let existing = try context.fetch(request).first,
                let attribute = existing.entity.attributes.first(where: { SampleValues.canUpdate($0) })
            {
                try existing.setValue(SampleValues.value(for: attribute, serial: 7), forKey: attribute.name)
                try context.save()
            }
        }
        #expect(!inserted.isEmpty, "\(store): no entity took an insert")
        try coordinator.remove(added)
        // Reopen: the file is still the store of the same version, with every row.
        let after = try Self.bookkeeping(url)
        #expect(after.plist == before.plist, "\(store): Z_PLIST changed")
        #expect(after.modelCache == before.modelCache, "\(store): Z_MODELCACHE changed")
        #expect(after.schema == before.schema, "\(store): the schema changed")
        let rowsAfter = try CoreDataStoreFileTests.rowsByEntity(url)
        for (name, _) in inserted {
            let entity = try #require(model.entitiesByName[name])
            let key = rowsBefore[name] != nil || rowsAfter[name] != nil ? name : entity.renamingIdentifier ?? name
            #expect((rowsAfter[key] ?? 0) == (rowsBefore[key] ?? 0) + 1, "\(store): \(name)")
        }
        let db = try SQLiteFile(url)
        for row in db.rows("SELECT Z_ENT, Z_NAME, Z_MAX FROM Z_PRIMARYKEY WHERE Z_SUPER = 0 AND Z_ENT < 16000") {
            let table = "Z" + row[1].uppercased()
            guard db.texts("SELECT name FROM sqlite_master WHERE name = '\(table)'").count == 1 else { continue }
            let maxKey = Int64(db.texts("SELECT COALESCE(MAX(Z_PK), 0) FROM \(table)").first ?? "0") ?? 0
            #expect((Int64(row[2]) ?? -1) >= maxKey, "\(store): Z_MAX of \(row[1])")
        }
        let match = try CoreDataStoreFile(url: url)
        #expect(match.metadata.identifier == (try CoreDataStoreFile(url: try store.copy())).metadata.identifier)
        if store.bundle != nil {
            let version = try match.matchVersion(in: try CoreDataStoreFileTests.versions(of: store)).version.name
            #expect(version == store.versionName, "\(store)")
        }
        // The inserted objects read back by their URIs (x-coredata://UUID/Entity/pN).
        let reopened = PersistentStoreCoordinator(managedObjectModel: model)
        try reopened.addPersistentStore(type: .sqlite, at: url)
        for (name, id) in inserted {
            let uri = id.uriRepresentation()
            #expect(uri.absoluteString.hasPrefix("x-coredata://\(match.metadata.identifier)/\(name)/p"), "\(uri)")
            #expect(reopened.managedObjectID(forURIRepresentation: uri) != nil, "\(store): \(uri)")
        }
    }

    @Test("a store with Core Data's persistent history opens read-only and says why")
    func historyStoresAreReadOnly() throws {
        let store = try #require(CoreDataStoreFileTests.stores.first { $0.features.contains("persistent-history") })
        let url = try store.copy()
        let model = try Self.model(for: store, at: url)
        let before = try Self.bookkeeping(url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        let error = try context.performAndWait {
            let entity = try #require(model.entitiesByName["Feedback"])
            try SampleValues.fill(ManagedObject(entity: entity, insertInto: context), in: context)
            return try #require(throws: (any Error).self) { try context.save() }
        }
        #expect("\(error)".contains("readOnly") && "\(error)".contains("persistent history"), "\(error)")
        #expect(try Self.bookkeeping(url) == before)
        // Against a second copy: opening the corpus file itself would make SQLite write beside it.
        #expect(try CoreDataStoreFileTests.rowsByEntity(url) == (try CoreDataStoreFileTests.rowsByEntity(store.copy())))
    }

    @Test("members appended to an ordered to-many get positions after the ones Core Data gave")
    func orderedPositions() throws {
        let store = try #require(
            CoreDataStoreFileTests.stores.first { $0.url.lastPathComponent == "Bookmarks_V4.sqlite" })
        let url = try store.copy()
        let model = try Self.model(for: store, at: url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        let (folderKey, childKey, favoriteKey, before) = try context.performAndWait {
            var request = FetchRequest<ManagedObject>(entityName: "BookmarkEntity")
            request.predicate = try FetchPredicate(format: "uuid == %@", "favorites_root")
            let favorites = try #require(try context.fetch(request).first)
            request.predicate = try FetchPredicate(format: "uuid == %@", "bookmarks_root")
            let root = try #require(try context.fetch(request).first)
            let before = (root.value(forKey: "children") as? [ManagedObject] ?? []).count
            let child = ManagedObject(entity: try #require(model.entitiesByName["BookmarkEntity"]), insertInto: context)
            try child.setValue("new-child", forKey: "uuid")
            try child.setValue(false, forKey: "isFolder")
            try child.setValue(false, forKey: "isPendingDeletion")
            root.addObject(child, toRelationship: "children")
            favorites.addObject(child, toRelationship: "favorites")
            try context.save()
            return (root.objectID.key, child.objectID.key, favorites.objectID.key, before)
        }
        let db = try SQLiteFile(url)
        // Children: Z_FOK_PARENT in the child's row, after the folder's other children.
        let childPosition = Int64(db.texts("SELECT Z_FOK_PARENT FROM ZBOOKMARKENTITY WHERE Z_PK = \(childKey)")[0])!
        let others = db.texts(
            "SELECT MAX(Z_FOK_PARENT) FROM ZBOOKMARKENTITY WHERE ZPARENT = \(folderKey) AND Z_PK != \(childKey)")
        #expect(childPosition == Int64(others[0])! + 1024)
        // Favorites: a link of the join table with its position after the other favorites.
        let link = db.rows(
            "SELECT Z_FOK_1FAVORITES FROM Z_1FAVORITES WHERE Z_1FAVORITEFOLDERS = \(favoriteKey) AND Z_1FAVORITES = \(childKey)"
        )
        #expect(link.count == 1)
        let otherFavorites = db.texts(
            "SELECT MAX(Z_FOK_1FAVORITES) FROM Z_1FAVORITES WHERE Z_1FAVORITEFOLDERS = \(favoriteKey) AND Z_1FAVORITES != \(childKey)"
        )
        #expect(Int64(link.first?[0] ?? "") == Int64(otherFavorites[0])! + 1024)
        // A new stack reads the children in position order, the new one last.
        let reopened = PersistentStoreCoordinator(managedObjectModel: model)
        try reopened.addPersistentStore(type: .sqlite, at: url)
        let fresh = ManagedObjectContext(concurrencyType: .privateQueue)
        fresh.persistentStoreCoordinator = reopened
        try fresh.performAndWait {
            var request = FetchRequest<ManagedObject>(entityName: "BookmarkEntity")
            request.predicate = try FetchPredicate(format: "uuid == %@", "bookmarks_root")
            let root = try #require(try fresh.fetch(request).first)
            let children = try #require(root.value(forKey: "children") as? [ManagedObject])
            #expect(children.count == before + 1)
            #expect(children.last?.value(forKey: "uuid") as? String == "new-child")
            let positions = children.map {
                db.texts("SELECT Z_FOK_PARENT FROM ZBOOKMARKENTITY WHERE Z_PK = \($0.objectID.key)")[0]
            }
            #expect(positions.map { Int64($0)! } == positions.map { Int64($0)! }.sorted())
        }
    }
}

/// What the model caches of real stores decode to, checked against the model files and the stores' own values.
@Suite("Model caches Core Data wrote", .enabled(if: CoreDataStoreCorpus.shared != nil, "no corpus"))
struct ModelCacheTests {
    static func store(_ name: String) throws -> CoreDataStoreCorpus.Store {
        try #require(CoreDataStoreFileTests.stores.first { $0.url.lastPathComponent == name })
    }

    @Test("a derived attribute's archived expression reads as its derivation; indexes and constraints are read")
    func derivationsIndexesConstraints() throws {
        let model = try #require(
            try CoreDataStoreFile(url: try Self.store("SampleModel2_V1.sqlite").copy()).cachedModel)
        let book = try #require(model.entitiesByName["Book"])
        #expect(book.attributesByName["pagesCount"]?.derivationExpression == "pages.@count")
        #expect(book.uniquenessConstraints == [["uniqueID"]])
        #expect(model.entitiesByName["GraphicNovel"]?.superentity === book)
        let bookmarks = try #require(
            try CoreDataStoreFile(url: try Self.store("Bookmarks_V4.sqlite").copy()).cachedModel?.entitiesByName[
                "BookmarkEntity"])
        #expect(Set(bookmarks.indexes.map(\.name)).isSuperset(of: ["byUUID", "byURL"]))
        #expect(bookmarks.relationshipsByName["favorites"]?.isOrdered == true)
        #expect(bookmarks.relationshipsByName["favorites"]?.inverse?.name == "favoriteFolders")
    }

    @Test("a value an app archived with its own secure-coding class reads as the class's keys")
    func appArchivedValue() throws {
        ValueTransformerRegistry.register(KeyedArchiveValueTransformer(), forName: "CoverTransformer")
        let url = try Self.store("SampleModel2_V1.sqlite").copy()
        let model = try #require(try CoreDataStoreFile(url: url).cachedModel)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            var request = FetchRequest<ManagedObject>(entityName: "Book")
            request.predicate = try FetchPredicate(format: "cover != nil")
            let book = try #require(try context.fetch(request).first)
            let cover = try #require(book.value(forKey: "cover") as? [String: Any])
            #expect(cover["$classname"] as? String == "CoreDataPlus_Tests.Cover")
            #expect((cover["text"] as? String)?.isEmpty == false)
        }
    }
}

/// The decimals the SQLite store promises: Core Data stores a decimal as REAL, so up to 15 significant digits
/// read back exactly and longer ones as the double nearest them.
@Suite("SQLite decimals")
struct SQLiteDecimalTests {
    @Test(
        "a decimal of up to 15 significant digits reads back exactly",
        arguments: [
            "19.99", "0.1", "-123456789.012345", "999999999999999", "0.000000000000123456789012345", "0.000001",
        ])
    func exact(_ text: String) throws {
        let value = try #require(Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")))
        #expect(try Self.roundTrip(value) == value)
    }

    @Test("a decimal of more digits reads back as the double nearest it, to 15 significant digits")
    func rounded() throws {
        let value = try #require(Decimal(string: "12345678901234567890.123"))
        let read = try #require(try Self.roundTrip(value))
        #expect(read != value)
        let error = abs(NSDecimalNumber(decimal: read - value).doubleValue)
        #expect(error / NSDecimalNumber(decimal: value).doubleValue < 1e-15)
    }

    static func roundTrip(_ value: Decimal) throws -> Decimal? {
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "Price", attributes: [AttributeDescription(name: "amount", type: .decimal)])
        ])
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("decimal-\(UUID().uuidString).sqlite")
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(type: .sqlite, at: url)
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait {
                try ManagedObject(entity: model.entitiesByName["Price"]!, insertInto: context).setValue(
                    value, forKey: "amount")
                try context.save()
            }
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return try context.performAndWait {
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Price")).first?.value(forKey: "amount")
                as? Decimal
        }
    }
}

/// A store Core Data wrote with derived attributes keeps `Z_DA_…` triggers that maintain them; ObjectStack's writes
/// go through them (functions of their names exist) and leave their columns to them.
@Suite("Derived-attribute triggers", .enabled(if: CoreDataStoreCorpus.shared != nil, "no corpus"))
struct DerivedTriggerTests {
    @Test("inserting a page counts it once, by the trigger, and the derived value reads the same")
    func countedOnce() throws {
        let store = try #require(
            CoreDataStoreFileTests.stores.first { $0.url.lastPathComponent == "SampleModel2_V2.sqlite" })
        let url = try store.copy()
        // Without Core Data's history the store takes writes; its triggers stay.
        let raw = try SQLiteFile(url)
        for statement in [
            "DROP TABLE ATRANSACTION", "DROP TABLE ACHANGE", "DROP TABLE ATRANSACTIONSTRING",
            "DELETE FROM Z_PRIMARYKEY WHERE Z_ENT >= 16000",
        ] {
            #expect(raw.execute(statement) == 0)
        }
        #expect(raw.texts("SELECT name FROM sqlite_master WHERE type = 'trigger'").count == 5)
        // The app's transformer archives its own class: the keyed-archive transformer reads and writes such values.
        ValueTransformerRegistry.register(KeyedArchiveValueTransformer(), forName: "ContentTransformer")
        let model = try #require(try CoreDataStoreFile(url: url).cachedModel)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        let (bookKey, before) = try context.performAndWait {
            var request = FetchRequest<ManagedObject>(entityName: "Book")
            request.sortDescriptors = [SortKey("title")]
            let book = try #require(try context.fetch(request).first)
            let before = (book.value(forKey: "pagesCount") as? NSNumber)?.intValue ?? -1
            let page = ManagedObject(entity: try #require(model.entitiesByName["Page"]), insertInto: context)
            try page.setValue(999, forKey: "number")
            try page.setValue(false, forKey: "isBookmarked")
            try page.setValue(["text": "page 999"], forKey: "content")
            try page.setValue(book, forKey: "book")
            try context.save()
            #expect((book.value(forKey: "pagesCount") as? NSNumber)?.intValue == before + 1)
            return (book.objectID.key, before)
        }
        #expect(raw.texts("SELECT ZPAGESCOUNT FROM ZBOOK WHERE Z_PK = \(bookKey)") == ["\(before + 1)"])
    }
}

/// A store matched against the wrong model is refused naming what differs, and left as it was.
@Suite("Stores of another model", .enabled(if: CoreDataStoreCorpus.shared != nil, "no corpus"))
struct MismatchedStoreTests {
    @Test("no version of another app's bundle matches: the error names the closest version and what differs")
    func noVersionMatches() throws {
        let moody = try #require(CoreDataStoreFileTests.stores.first { $0.url.lastPathComponent == "Moody 2.moody" })
        let bookmarks = try #require(
            CoreDataStoreFileTests.stores.first { $0.url.lastPathComponent == "Bookmarks_V1.sqlite" })
        let file = try CoreDataStoreFile(url: try moody.copy())
        let error = try #require(throws: ObjectStackError.self) {
            try file.matchVersion(in: try CoreDataStoreFileTests.versions(of: bookmarks))
        }
        #expect(error.code == .modelMismatch)
        #expect(error.message.contains("closest is BookmarksModel"), "\(error)")
        #expect(error.message.contains("the version has ") || error.message.contains("the store has "), "\(error)")
    }

    @Test("opened with the next version's model, a store is refused naming the first difference, and unchanged")
    func wrongVersionRefused() throws {
        let store = try #require(CoreDataStoreFileTests.stores.first { $0.url.lastPathComponent == "Moody 2.moody" })
        let url = try store.copy()
        let next = try #require(try CoreDataStoreFileTests.versions(of: store).first { $0.name == "Moody 3" })
        let before = try Data(contentsOf: url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: next.model)
        let error = try #require(throws: StoreError.self) { try coordinator.addPersistentStore(type: .sqlite, at: url) }
        #expect(error.code == .incompatibleModel)
        #expect(error.message.contains("Mood"), "\(error)")
        #expect(try Data(contentsOf: url) == before)
    }

    @Test("two versions with the same hash inputs cannot be told apart: the version option picks, else the current")
    func ambiguousVersions() throws {
        let store = try #require(CoreDataStoreFileTests.stores.first { $0.url.lastPathComponent == "Moody 2.moody" })
        let file = try CoreDataStoreFile(url: try store.copy())
        let versions = try CoreDataStoreFileTests.versions(of: store)
        let twin = try #require(versions.first { $0.name == "Moody 2" })
        // The same version twice, the second current: a bundle whose two versions differ only in indexes.
        let copy = ModelVersion(
            name: "Moody 2 copy", url: twin.url, isCurrent: true, model: twin.model, declaredCounts: twin.declaredCounts
        )
        let pair = [twin, copy]
        let picked = try file.matchVersion(in: pair)
        #expect(picked.equalVersions == ["Moody 2", "Moody 2 copy"])
        #expect(picked.version.name == "Moody 2 copy" && picked.reason.contains("cannot be told apart"))
        #expect(try file.matchVersion(in: pair, preferring: "Moody 2").version.name == "Moody 2")
        #expect(throws: ObjectStackError.self) { try file.matchVersion(in: pair, preferring: "Moody 9") }
    }
}

/// Core Data's version hashes: read from stores Core Data wrote, their digest and checksum reproduced, and written
/// into a store ObjectStack creates so that it carries exactly those.
@Suite("Core Data's version hashes", .enabled(if: CoreDataStoreCorpus.shared != nil, "no corpus"))
struct CoreDataVersionHashesTests {
    @Test("the digest and checksum of every store's hashes are the ones Core Data wrote beside them")
    func digestAndChecksum() throws {
        var digests = 0
        var checksums = 0
        for store in CoreDataStoreFileTests.stores {
            let url = try store.copy()
            let hashes = try CoreDataVersionHashes(storeAt: url)
            let plist = try #require(try SQLiteFile(url).blobs("SELECT Z_PLIST FROM Z_METADATA").first ?? nil)
            let values = try #require(
                try PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any])
            #expect(hashes.hashes.values.allSatisfy { $0.count == 32 }, "\(store)")
            if let digest = values["NSStoreModelVersionHashesDigest"] as? String {
                #expect(hashes.digest == digest, "\(store)")
                digests += 1
            }
            if let checksum = values["NSStoreModelVersionChecksumKey"] as? String {
                #expect(hashes.checksum == checksum, "\(store)")
                checksums += 1
            }
        }
        #expect(digests == 16 && checksums == 5)
    }

    @Test("a store created with Core Data's hashes carries exactly them, their digest and checksum, and still opens")
    func writtenIntoANewStore() throws {
        let source = try #require(
            CoreDataStoreFileTests.stores.first { $0.url.lastPathComponent == "Bookmarks_V4.sqlite" })
        let sourceURL = try source.copy()
        let hashes = try CoreDataVersionHashes(storeAt: sourceURL)
        let model = try #require(try CoreDataStoreFile(url: sourceURL).cachedModel)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("hashes-\(UUID().uuidString).sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(
            type: .sqlite, at: url, options: [SQLiteStore.coreDataVersionHashesOption: hashes.optionValue])
        try coordinator.remove(store)
        let created = try CoreDataStoreFile(url: url)
        #expect(created.coreDataVersionHashes == hashes.hashes)
        #expect(!created.isWrittenByObjectStack && created.hasObjectStackHashes)
        let plist = try #require(try SQLiteFile(url).blobs("SELECT Z_PLIST FROM Z_METADATA").first ?? nil)
        let values = try #require(
            try PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any])
        #expect(values["NSStoreModelVersionHashesDigest"] as? String == hashes.digest)
        #expect(values["NSStoreModelVersionChecksumKey"] as? String == hashes.checksum)
        #expect(values["ObjectStackWriter"] == nil)
        // ObjectStack still knows which model wrote it, by its own hashes beside Core Data's.
        let reopened = PersistentStoreCoordinator(managedObjectModel: model)
        try reopened.addPersistentStore(type: .sqlite, at: url)
        // Hashes of other entities are refused before anything is written.
        let other = FileManager.default.temporaryDirectory.appendingPathComponent("hashes-\(UUID().uuidString).sqlite")
        let wrong = CoreDataVersionHashes(hashes: ["Nope": Data(count: 32)])
        #expect(throws: StoreError.self) {
            try PersistentStoreCoordinator(managedObjectModel: model).addPersistentStore(
                type: .sqlite, at: other, options: [SQLiteStore.coreDataVersionHashesOption: wrong.optionValue])
        }
        #expect(!FileManager.default.fileExists(atPath: other.path))
    }

    @Test("a compiled model's VersionInfo.plist gives one version's hashes; a version it lacks is named")
    func versionInfo() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("Model-\(UUID().uuidString).momd")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let hashes: [String: Any] = [
            "NSManagedObjectModel_VersionHashes": ["Model 2": ["Item": Data(repeating: 7, count: 32)]]
        ]
        try PropertyListSerialization.data(fromPropertyList: hashes, format: .xml, options: 0).write(
            to: folder.appendingPathComponent("VersionInfo.plist"))
        let read = try CoreDataVersionHashes(versionInfoAt: folder, version: "Model 2")
        #expect(read.hashes == ["Item": Data(repeating: 7, count: 32)])
        let error = try #require(throws: StoreError.self) {
            try CoreDataVersionHashes(versionInfoAt: folder, version: "Model 3")
        }
        #expect(error.message.contains("Model 2"))
    }
}
