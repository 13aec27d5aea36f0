import Foundation
import ObjectStack
import Testing

@testable import LabWorkloads

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The generated objects of any model served as paged JSON, and imported back by find-or-create on their keys.
@Suite("Model data service and importer")
struct ModelDataServiceTests {
    /// Accounts unique by code, each with 2 or 3 devices unique by serial.
    static let keyedModel = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Account" representedClassName="Account" syncable="YES">
                <attribute name="code" attributeType="String" regularExpressionString="[A-Z]{3}-\\\\d{4}"/>
                <attribute name="joined" attributeType="Date"/>
                <attribute name="balance" optional="YES" attributeType="Decimal"/>
                <attribute name="avatar" optional="YES" attributeType="Binary"/>
                <attribute name="tags" optional="YES" attributeType="Transformable" valueTransformerName="ModelDataServiceTestsTags"/>
                <relationship name="devices" toMany="YES" minCount="2" maxCount="3" deletionRule="Cascade" destinationEntity="Device" inverseName="account" inverseEntity="Device"/>
                <uniquenessConstraints><uniquenessConstraint><constraint value="code"/></uniquenessConstraint></uniquenessConstraints>
            </entity>
            <entity name="Device" representedClassName="Device" syncable="YES">
                <attribute name="serial" attributeType="Integer 64"/>
                <attribute name="identifier" attributeType="UUID"/>
                <relationship name="account" maxCount="1" deletionRule="Nullify" destinationEntity="Account" inverseName="devices" inverseEntity="Account"/>
                <uniquenessConstraints><uniquenessConstraint><constraint value="serial"/></uniquenessConstraint></uniquenessConstraints>
            </entity>
        </model>
        """

    static func importAll(_ pages: ModelObjectPages, into coordinator: PersistentStoreCoordinator) throws
        -> ModelImporter.Counts
    {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return try context.performAndWait { () throws in
            let importer = try ModelImporter(context: context)
            for entity in pages.entityNames {
                for number in 1...pages.pageCount(of: entity)! {
                    try importer.importPage(pages.page(number, of: entity)!)
                }
            }
            try context.save()
            return importer.counts
        }
    }

    @Test(
        "a model's objects imported from their pages give the same store; imported again, every object is found by its key",
        arguments: [StoreKind.sqlite, .lmdb, .memory])
    func importsByKey(kind: StoreKind) throws {
        let url = try ModelPopulationTests.bareModel(Self.keyedModel)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let model = try ManagedObjectModel(contentsOf: url)
        let plan = try PopulationPlan(model: model, spec: PopulationSpec(rootCount: 40), seed: 8)
        let pages = try ModelObjectPages(plan: plan, pageSize: 16)
        #expect(pages.pageCount(of: "Account") == 3)
        let (coordinator, directory) = try ModelPopulationTests.store(kind, model)
        defer { try? FileManager.default.removeItem(at: directory) }

        let first = try Self.importAll(pages, into: coordinator)
        #expect(first.inserted == plan.objectCount)
        let audit = try PopulationAudit(coordinator: coordinator)
        #expect(audit.problems == [])
        #expect(
            audit.objectsByEntity == Dictionary(uniqueKeysWithValues: plan.entities.map { ($0.entity.name, $0.count) }))

        // The store written directly from the plan holds the same values and links.
        let (direct, directFolder) = try ModelPopulationTests.store(kind, model)
        defer { try? FileManager.default.removeItem(at: directFolder) }
        _ = try ModelPopulator.write(plan, into: direct)
        #expect(
            Self.sortedValues(try PopulationAudit(coordinator: direct).contents) == Self.sortedValues(audit.contents))

        let again = try Self.importAll(pages, into: coordinator)
        #expect(again.inserted == 0)
        #expect(again.found == plan.objectCount)
        // One fetch per page and key scope: an account page finds its accounts and the devices they refer to, after
        // which every device is known.
        #expect(again.fetches == 2 * pages.pageCount(of: "Account")!)
        #expect(try PopulationAudit(coordinator: coordinator).objectsByEntity == audit.objectsByEntity)
    }

    /// A store's contents without primary keys (the importer inserts in another order), each object's values
    /// with its related objects named by key, sorted.
    static func sortedValues(_ contents: String, dropping relationships: [String] = ["devices=", "account="])
        -> [String]
    {
        contents.split(separator: "\n").map { line in
            line.split(separator: " ").dropFirst(2).filter { field in !relationships.contains { field.hasPrefix($0) } }
                .joined(separator: " ")
        }.sorted()
    }

    @Test("the service serves every entity's pages as JSON, and explains an unknown entity or a bad page")
    func serves() async throws {
        let model = try ManagedObjectModel(contentsOf: ModelPopulationTests.url("objcio-core-data-Migrations"))
        let plan = try PopulationPlan(model: model, spec: PopulationSpec(rootCount: 30), seed: 4)
        let pages = try ModelObjectPages(plan: plan, pageSize: 25)
        let service = try await ModelDataService.start(pages: pages)
        let session = URLSession(configuration: .ephemeral)
        func get(_ path: String) async throws -> (Int, [String: Any]) {
            let (data, response) = try await session.data(from: URL(string: service.baseURL.absoluteString + path)!)
            return (
                (response as? HTTPURLResponse)?.statusCode ?? 0,
                (try JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
            )
        }
        do {
            let countries = plan.entities.first { $0.entity.name == "Country" }!.count
            let (status, page) = try await get("/objects/Country?page=2")
            #expect(status == 200)
            #expect(page["entity"] as? String == "Country")
            #expect(page["number_of_pages"] as? Int == (countries + 24) / 25)
            let objects = page["result"] as? [[String: Any]] ?? []
            #expect(objects.count == min(25, countries - 25))
            #expect(objects.first?["@id"] as? String == "Country/25")
            #expect((objects.first?["continent"] as? [String: Any])?["@id"] as? String != nil)
            #expect(objects.first?["moods"] is [Any])
            // A mood's country is a reference carrying the country's key (its uniqueness constraint's values).
            let (_, moods) = try await get("/objects/Mood?page=1")
            let country = (moods["result"] as? [[String: Any]])?.first?["country"] as? [String: Any]
            #expect((country?["@id"] as? String)?.hasPrefix("Country/") == true)
            #expect(country?["numericISO3166Code"] is NSNumber && country?["uniquenessDummy"] is NSNumber)

            let (listed, index) = try await get("/entities")
            #expect(listed == 200)
            #expect(
                (index["entities"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == [
                    "Continent", "Country", "Mood",
                ])
            let (missing, error) = try await get("/objects/Planet?page=1")
            #expect(missing == 404)
            #expect((error["error"] as? String)?.contains("no entity 'Planet'") == true)
            #expect(try await get("/objects/Country?page=\((countries + 24) / 25 + 1)").0 == 404)
            #expect(try await get("/objects/Country?page=x").0 == 400)
            #expect(try await get("/objects/Country").0 == 400)
        }
        session.invalidateAndCancel()
        await service.stop(grace: 0)
    }

    @Test(
        "every shared model's pages import into a store whose objects, values and constraints match the plan",
        arguments: ModelPopulationTests.sharedModelFolders)
    func importsSharedModel(folder: String) throws {
        let model = try ManagedObjectModel(contentsOf: ModelPopulationTests.url(folder))
        let plan = try PopulationPlan(model: model, spec: PopulationSpec(rootCount: 9), seed: 12)
        let pages = try ModelObjectPages(plan: plan, pageSize: 7)
        let (coordinator, directory) = try ModelPopulationTests.store(.sqlite, model)
        defer { try? FileManager.default.removeItem(at: directory) }
        let counts = try Self.importAll(pages, into: coordinator)
        #expect(counts.inserted == plan.objectCount)
        let audit = try PopulationAudit(coordinator: coordinator)
        #expect(audit.problems == [])
        for entity in plan.entities {
            #expect(audit.objectsByEntity[entity.entity.name] == entity.count, "\(entity.entity.name)")
        }
    }
}
