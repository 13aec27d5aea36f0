import Foundation
import ObjectStack
import ObjectStackSQLite
import TestSupport
import Testing

/// The corpus's mapping models (`shared/coredata-stores`), each run on the store Core Data wrote at its source
/// version: the store is migrated in place, through the repository's policies written in Swift, and holds what the
/// mapping defines: the row counts and the values the repositories' own tests expect.
@Suite("Mapping models of the corpus", .enabled(if: CoreDataStoreCorpus.shared != nil, "no shared/coredata-stores"))
struct MappingModelCorpusTests {
    static let corpus = CoreDataStoreCorpus.shared
    static let mappings = corpus?.mappingModels ?? []

    /// A mapping model with the versions it maps between and the corpus store written at its source version.
    struct Case: CustomStringConvertible {
        let entry: CoreDataStoreCorpus.MappingModel
        let mapping: MappingModel
        let source: ModelVersion
        let destination: ModelVersion
        let store: CoreDataStoreCorpus.Store?

        var description: String { "\(entry.folder)/\(mapping.name)" }
    }

    static func load(_ entry: CoreDataStoreCorpus.MappingModel) throws -> Case {
        let mapping = try entry.read()
        for bundle in entry.bundles {
            guard let (source, destination) = try? mapping.versions(in: ManagedObjectModel.versions(contentsOf: bundle))
            else { continue }
            let store = corpus?.stores.first {
                $0.folder == entry.folder && $0.bundle == bundle && $0.versionName == source.name
            }
            return Case(entry: entry, mapping: mapping, source: source, destination: destination, store: store)
        }
        throw PolicyFailure("\(entry.url.lastPathComponent) fits no pair of versions of \(entry.bundles)")
    }

    /// Objects per entity (sub-entities' apart), read through a fresh stack.
    static func counts(_ url: URL, type: StoreType = .sqlite, model: ManagedObjectModel) throws -> [String: Int] {
        try withContext(url, type: type, model: model) { context in
            var counts: [String: Int] = [:]
            for entity in model.entities where !entity.isAbstract {
                var request = FetchRequest<ManagedObject>(entityName: entity.name)
                request.includesSubentities = false
                counts[entity.name] = try context.count(for: request)
            }
            return counts
        }
    }

    static func withContext<T>(
        _ url: URL, type: StoreType = .sqlite, model: ManagedObjectModel,
        _ body: (ManagedObjectContext) throws -> T
    ) throws -> T {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: type, at: url)
        defer { try? coordinator.remove(store) }
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return try context.performAndWait { try body(context) }
    }

    static func objects(_ context: ManagedObjectContext, _ entity: String) throws -> [ManagedObject] {
        try context.fetch(FetchRequest<ManagedObject>(entityName: entity))
    }

    @Test("the corpus lists 8 mapping models, and each reads and fits two versions of its bundle")
    func everyMappingModelReads() throws {
        #expect(Self.mappings.count == 8)
        var withStore = 0
        for entry in Self.mappings {
            let loaded = try Self.load(entry)
            #expect(!loaded.mapping.entityMappings.isEmpty, "\(loaded)")
            if loaded.store != nil { withStore += 1 }
        }
        // alemar11/CoreDataPlus ships no store at V2's successor's source version V3, but one at V2: all 8 have one.
        #expect(withStore == 8)
    }

    @Test("each older store migrates through its mapping model in place", arguments: mappings)
    func migratesThroughMapping(_ entry: CoreDataStoreCorpus.MappingModel) throws {
        let loaded = try Self.load(entry)
        let store = try #require(loaded.store, "\(loaded): no store at \(loaded.source.name)")
        let url = try store.copy()
        let before = try Self.counts(url, model: loaded.source.model)
        let snapshot = try Snapshot(url, model: loaded.source.model)
        let reports = LockedValue<[MigrationProgress]>([])
        let migrated = try MigrationManager.migrateStore(
            at: url, type: .sqlite, from: loaded.source.model, to: loaded.destination.model, mapping: loaded.mapping,
            policies: CorpusMigrationPolicies.policies(forFolder: entry.folder)
        ) { report in reports.withLock { $0.append(report) } }
        #expect(migrated)
        #expect(!FileManager.default.fileExists(atPath: url.path + ".migrating"))
        let after = try Self.counts(url, model: loaded.destination.model)
        print(
            "mapping \(loaded): \(loaded.source.name) -> \(loaded.destination.name): rows before "
                + "\(before.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")); after "
                + "\(after.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")
        // Every mapping with both entities makes one instance per source instance.
        for entityMapping in loaded.mapping.entityMappings {
            guard let source = entityMapping.sourceEntityName, let destination = entityMapping.destinationEntityName
            else { continue }
            let sharing = loaded.mapping.entityMappings.filter { $0.destinationEntityName == destination }
            let expected = sharing.compactMap { $0.sourceEntityName }.reduce(0) { $0 + (before[$1] ?? 0) }
            #expect(after[destination] == expected, "\(loaded): \(entityMapping.name) from \(source)")
        }
        // Progress: preparing, the three stages, replacing, finished; never backwards.
        let phases = reports.withLock { $0 }.map(\.phase)
        #expect(phases.first == .preparing && phases.last == .finished && phases.contains(.replacing))
        let stages = Set(reports.withLock { $0 }.compactMap(\.mappingStage))
        #expect(stages == [.createDestinationInstances, .createRelationships, .validate])
        let fractions = reports.withLock { $0 }.map(\.fractionCompleted)
        #expect(zip(fractions, fractions.dropFirst()).allSatisfy { $0 <= $1 })
        try expectValues(loaded, snapshot: snapshot, url: url, before: before, after: after)
    }

    /// What each mapping defines, checked against the source store's values.
    func expectValues(
        _ loaded: Case, snapshot: Snapshot, url: URL, before: [String: Int], after: [String: Int]
    ) throws {
        let model = loaded.destination.model
        switch (loaded.entry.folder, loaded.mapping.name) {
        case ("wibosco+CoreDataMigration-Example", "Migration1to2"):
            // color is renamed hexColor by '$source.color'.
            try Self.withContext(url, model: model) { context in
                for post in try Self.objects(context, "Post") {
                    let id = try #require(post.value(forKey: "postID") as? String)
                    #expect(post.value(forKey: "hexColor") as? String == snapshot.posts[id]?["color"] as? String)
                    #expect(post.value(forKey: "date") as? Date == snapshot.posts[id]?["date"] as? Date)
                }
            }
        case ("wibosco+CoreDataMigration-Example", "Migration2to3"):
            // Post2ToPost3MigrationPolicy: a Color per post, holding the post's hexColor.
            #expect(after["Color"] == before["Post"])
            try Self.withContext(url, model: model) { context in
                for post in try Self.objects(context, "Post") {
                    let id = try #require(post.value(forKey: "postID") as? String)
                    let color = try #require(post.value(forKey: "color") as? ManagedObject)
                    #expect(color.value(forKey: "hex") as? String == snapshot.posts[id]?["hexColor"] as? String)
                    #expect((color.value(forKey: "colorID") as? String).flatMap(UUID.init(uuidString:)) != nil)
                }
            }
        case ("wibosco+CoreDataMigrationRevised-Example", "Migration2to3ModelMapping"):
            // Post2ToPost3MigrationPolicy: a Section per post, at index 0, with the content and its first 4
            // characters and "..." as title (the repository's test expects "Test..." for "Test body").
            #expect(after["Section"] == before["Post"])
            try Self.withContext(url, model: model) { context in
                for post in try Self.objects(context, "Post") {
                    let id = try #require(post.value(forKey: "postID") as? String)
                    let sections = try #require(post.value(forKey: "sections") as? Set<ManagedObject>)
                    let section = try #require(sections.first)
                    #expect(sections.count == 1)
                    let content = snapshot.posts[id]?["content"] as? String
                    #expect(section.value(forKey: "body") as? String == content)
                    #expect(section.value(forKey: "title") as? String == content.map { String($0.prefix(4)) + "..." })
                    #expect(section.value(forKey: "index") as? Int == 0)
                }
            }
        case ("alemar11+CoreDataPlus", "V2toV3"):
            // V2to3MakerPolicy: a Maker per distinct maker name (10 in the repository's test), each car in its
            // maker's cars; previousOwners and previousCars through '$source.owner' and '$source.cars'.
            #expect(after["Maker"] == Set(snapshot.cars.values.compactMap { $0["maker"] as? String }).count)
            #expect(after["Maker"] == 10)
            try Self.withContext(url, model: model) { context in
                let cars = try Self.objects(context, "Car")
                #expect(cars.count == 125)
                for car in cars {
                    let plate = try #require(car.value(forKey: "numberPlate") as? String)
                    let maker = car.value(forKey: "createdBy") as? ManagedObject
                    #expect(maker?.value(forKey: "name") as? String == snapshot.cars[plate]?["maker"] as? String)
                    let owner = car.value(forKey: "owner") as? ManagedObject
                    let previous = try #require(car.value(forKey: "previousOwners") as? Set<ManagedObject>)
                    if let owner {
                        #expect(previous == [owner])
                        #expect((owner.value(forKey: "previousCars") as? Set<ManagedObject>)?.contains(car) == true)
                        #expect(owner.value(forKey: "lastName") as? String == snapshot.cars[plate]?["owner"] as? String)
                    } else {
                        #expect(previous.isEmpty)
                        #expect(snapshot.cars[plate]?["owner"] == nil)
                    }
                }
            }
        case ("objcio+core-data", "Moody 2-Moody 3"):
            // A mood's continent is its country's; a continent's moods are its countries' moods
            // ('$source.countries.@distinctUnionOfSets.moods').
            try Self.withContext(url, model: model) { context in
                let moods = try Self.objects(context, "Mood")
                #expect(moods.count == 4)
                for mood in moods {
                    let country = mood.value(forKey: "country") as? ManagedObject
                    let continent = mood.value(forKey: "continent") as? ManagedObject
                    #expect(continent != nil && continent === country?.value(forKey: "continent") as? ManagedObject)
                }
                for continent in try Self.objects(context, "Continent") {
                    let countries = continent.value(forKey: "countries") as? Set<ManagedObject> ?? []
                    let expected = Set(countries.flatMap { $0.value(forKey: "moods") as? Set<ManagedObject> ?? [] })
                    #expect(continent.value(forKey: "moods") as? Set<ManagedObject> == expected)
                }
                let moodsPerContinent = try Self.objects(context, "Continent").map {
                    (
                        $0.value(forKey: "numericISO3166Code") as? Int ?? 0,
                        ($0.value(forKey: "moods") as? Set<ManagedObject>)?.count ?? 0
                    )
                }
                // objc.io's test data: continent 10005 has 1 mood, 10004 has 3.
                #expect(Dictionary(uniqueKeysWithValues: moodsPerContinent) == [10004: 3, 10005: 1])
            }
        case ("objcio+core-data", "Moody 3-Moody 4"):
            // The abstract GeographicRegion is gone; every country keeps its continent and moods.
            try Self.withContext(url, model: model) { context in
                let countries = try Self.objects(context, "Country")
                #expect(countries.count == 3)
                for country in countries {
                    let code = try #require(country.value(forKey: "numericISO3166Code") as? Int)
                    let continent = country.value(forKey: "continent") as? ManagedObject
                    #expect(continent?.value(forKey: "numericISO3166Code") as? Int == snapshot.continentOfCountry[code])
                    #expect(
                        (country.value(forKey: "moods") as? Set<ManagedObject>)?.count == snapshot.moodsOfCountry[code])
                }
            }
        case ("objcio+core-data", "Moody 4-Moody 5"):
            // Continent is removed; a country's isoContinent is '$source.continent.numericISO3166Code'.
            #expect(after["Continent"] == nil)
            try Self.withContext(url, model: model) { context in
                for country in try Self.objects(context, "Country") {
                    let code = try #require(country.value(forKey: "numericISO3166Code") as? Int)
                    #expect(country.value(forKey: "isoContinent") as? Int == snapshot.continentOfCountry[code])
                }
            }
        case ("objcio+core-data", "Moody 5-Moody 6"):
            // Country5ToCountry6Policy: a Continent per distinct isoContinent (10004 and 10005 in objc.io's v6Data).
            try Self.withContext(url, model: model) { context in
                let continents = try Self.objects(context, "Continent")
                #expect(
                    Set(continents.compactMap { $0.value(forKey: "numericISO3166Code") as? Int }) == [10004, 10005])
                for country in try Self.objects(context, "Country") {
                    let code = try #require(country.value(forKey: "numericISO3166Code") as? Int)
                    let continent = country.value(forKey: "continent") as? ManagedObject
                    #expect(continent?.value(forKey: "numericISO3166Code") as? Int == snapshot.continentOfCountry[code])
                }
            }
        default:
            Issue.record("\(loaded): no expectations for this mapping model")
        }
    }

    @Test("a corpus store migrates through its mapping model into an LMDB and an in-memory store too")
    func intoOtherStores() throws {
        let entry = try #require(Self.mappings.first { $0.url.lastPathComponent == "Moody 2-Moody 3.xcmappingmodel" })
        let loaded = try Self.load(entry)
        let url = try #require(loaded.store).copy()
        let expected = try Self.counts(url, model: loaded.source.model)
        for type in [StoreType.lmdb, .inMemory] {
            let target = type.newLocation()
            // An in-memory store's backing lives while a store is open on it.
            let keeper = PersistentStoreCoordinator(managedObjectModel: loaded.destination.model)
            let kept = try keeper.addPersistentStore(type: type, at: target)
            defer { try? keeper.remove(kept) }
            let manager = MigrationManager(sourceModel: loaded.source.model, destinationModel: loaded.destination.model)
            try manager.migrateStore(
                from: url, type: .sqlite, mapping: loaded.mapping, to: target, type: type)
            let counts = try Self.counts(target, type: type, model: loaded.destination.model)
            #expect(counts == expected, "\(type)")
        }
    }
}

/// The source store's values the checks compare with, read before the migration.
struct Snapshot {
    /// Posts by postID: their attributes.
    var posts: [String: [String: Any]] = [:]
    /// Cars by number plate: maker name and owner's last name.
    var cars: [String: [String: Any]] = [:]
    /// A country's continent code, by country code.
    var continentOfCountry: [Int: Int] = [:]
    /// A country's moods, by country code.
    var moodsOfCountry: [Int: Int] = [:]

    init(_ url: URL, model: ManagedObjectModel) throws {
        try MappingModelCorpusTests.withContext(url, model: model) { context in
            if let post = model.entitiesByName["Post"] {
                for object in try MappingModelCorpusTests.objects(context, "Post") {
                    guard let id = object.value(forKey: "postID") as? String else { continue }
                    var values: [String: Any] = [:]
                    for attribute in post.attributes { values[attribute.name] = object.value(forKey: attribute.name) }
                    posts[id] = values
                }
            }
            if model.entitiesByName["Car"] != nil {
                for car in try MappingModelCorpusTests.objects(context, "Car") {
                    guard let plate = car.value(forKey: "numberPlate") as? String else { continue }
                    var values: [String: Any] = [:]
                    values["maker"] = car.value(forKey: "maker")
                    values["owner"] = (car.value(forKey: "owner") as? ManagedObject)?.value(forKey: "lastName")
                    cars[plate] = values
                }
            }
            if let country = model.entitiesByName["Country"] {
                for object in try MappingModelCorpusTests.objects(context, "Country") {
                    guard let code = object.value(forKey: "numericISO3166Code") as? Int else { continue }
                    if country.relationshipsByName["continent"] != nil {
                        continentOfCountry[code] =
                            (object.value(forKey: "continent") as? ManagedObject)?.value(forKey: "numericISO3166Code")
                            as? Int
                    } else if country.attributesByName["isoContinent"] != nil {
                        continentOfCountry[code] = object.value(forKey: "isoContinent") as? Int
                    }
                    moodsOfCountry[code] = (object.value(forKey: "moods") as? Set<ManagedObject>)?.count
                }
            }
        }
    }
}
