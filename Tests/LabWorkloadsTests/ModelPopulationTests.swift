import Foundation
import ObjectStack
import TestSupport
import Testing

@testable import LabWorkloads

/// The model-driven generator on the shared real models: every one populates on every store with its
/// constraints holding, the same seed gives the same store, and a model it cannot populate is refused first.
@Suite("Model population")
struct ModelPopulationTests {
    /// Every bundle of the shared set: folder and bundle name.
    static let sharedModels: [(folder: String, bundle: String)] = [
        ("BrowserServicesKit", "BookmarksModel.xcdatamodeld"), ("Core-Data-Editor", "simple_no_inverse.xcdatamodeld"),
        ("CoreDataPlus", "SampleModel.xcdatamodeld"), ("CoreStore", "Model.xcdatamodeld"),
        ("LoopKit", "Model.xcdatamodeld"),
        ("Maccy", "Storage.xcdatamodeld"), ("MagicalRecord", "TestModel.xcdatamodeld"),
        ("mogenerator", "test.xcdatamodel"),
        ("objcio-core-data-Chapter-1.2", "Moody.xcdatamodeld"), ("objcio-core-data-Migrations", "Moody.xcdatamodeld"),
        ("SwiftGen", "Model.xcdatamodeld"), ("Sync", "151-ordered-many-to-many.xcdatamodeld"),
        ("wikipedia-ios", "Wikipedia.xcdatamodeld"),
    ]

    static var sharedModelFolders: [String] { sharedModels.map(\.folder) }

    static func url(_ folder: String) -> URL {
        SharedModels.url(folder, sharedModels.first { $0.folder == folder }!.bundle)
    }

    /// A fresh store of `kind` for `model`, in a new temporary folder.
    static func store(_ kind: StoreKind, _ model: ManagedObjectModel) throws -> (PersistentStoreCoordinator, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stacklab-population-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url =
            !kind.isFile
            ? URL(string: "memory://population-\(UUID().uuidString)")!
            : folder.appendingPathComponent("store.\(kind.name)")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(type: kind.storeType, at: url)
        return (coordinator, folder)
    }

    @Test(
        "every shared model populates on every store with its constraints holding",
        arguments: sharedModelFolders, StoreKind.all)
    func populatesSharedModel(folder: String, kind: StoreKind) throws {
        let model = try ManagedObjectModel(contentsOf: Self.url(folder))
        let plan = try PopulationPlan(model: model, spec: PopulationSpec(rootCount: 6), seed: 11)
        let (coordinator, directory) = try Self.store(kind, model)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try ModelPopulator.write(plan, into: coordinator)
        let audit = try PopulationAudit(coordinator: coordinator)
        #expect(audit.problems == [])
        #expect(result.objects > 0)
        for entity in model.entities {
            #expect(
                audit.objectsByEntity[entity.name]
                    == (entity.isAbstract ? 0 : plan.entities.first { $0.entity === entity }?.count),
                "\(entity.name)")
        }
    }

    /// The contents of a new store of `kind` populated from `model` with `seed`.
    static func contents(_ kind: StoreKind, _ url: URL, seed: UInt64) throws -> String {
        let model = try ManagedObjectModel(contentsOf: url)
        let plan = try PopulationPlan(model: model, spec: PopulationSpec(rootCount: 12), seed: seed)
        let (coordinator, directory) = try store(kind, model)
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try ModelPopulator.write(plan, into: coordinator)
        return try PopulationAudit(coordinator: coordinator).contents
    }

    @Test(
        "the same seed gives the same store, value for value; another seed another store",
        arguments: ["objcio-core-data-Migrations", "wikipedia-ios", "CoreDataPlus"], [StoreKind.sqlite, .lmdb])
    func deterministic(folder: String, kind: StoreKind) throws {
        let first = try Self.contents(kind, Self.url(folder), seed: 5)
        let second = try Self.contents(kind, Self.url(folder), seed: 5)
        let other = try Self.contents(kind, Self.url(folder), seed: 6)
        #expect(first.count > 1_000)
        #expect(first == second)
        #expect(first != other)
    }

    @Test("given counts and ratios are honoured, derived counts follow the to-manys, abstract entities get none")
    func counts() throws {
        let model = try ManagedObjectModel(contentsOf: Self.url("objcio-core-data-Chapter-1.2"))
        let spec = PopulationSpec(
            rootCount: 10, counts: ["Continent": .ratio(0.5), "Mood": .objects(15)], children: 1...1)
        let plan = try PopulationPlan(model: model, spec: spec, seed: 3)
        let (coordinator, directory) = try Self.store(.sqlite, model)
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try ModelPopulator.write(plan, into: coordinator)
        let audit = try PopulationAudit(coordinator: coordinator)
        #expect(audit.problems == [])
        #expect(audit.objectsByEntity == ["Continent": 5, "Country": 10, "Mood": 15, "Region": 0])
        // Country.moods is a required to-many: 10 countries cannot share 7 moods.
        let refusal = #expect(throws: PopulationRefusal.self) {
            try PopulationPlan(
                model: model, spec: PopulationSpec(rootCount: 10, counts: ["Mood": .objects(7)]), seed: 1)
        }
        #expect(
            refusal?.description == "cannot populate Country.moods: population Mood: 7 gives 7 Mood objects, too few: "
                + "each of the 10 Country objects holds at least 1 Mood of its own in Country.moods, so Mood needs at "
                + "least 10; set Mood: 10, or leave Mood out and the generator sizes it")
        #expect(refusal?.populationKey == "Mood")
        #expect(model.entitiesByName["Region"]!.isAbstract)
        #expect(throws: PopulationRefusal.self) {
            try PopulationPlan(model: model, spec: PopulationSpec(counts: ["Region": .objects(3)]), seed: 1)
        }
        #expect(throws: PopulationRefusal.self) {
            try PopulationPlan(model: model, spec: PopulationSpec(counts: ["Planet": .objects(3)]), seed: 1)
        }
    }

    @Test("a transformable attribute's values go through a registered transformer and read back")
    func transformable() throws {
        let model = try ManagedObjectModel(contentsOf: Self.url("CoreDataPlus"))
        let plan = try PopulationPlan(model: model, spec: PopulationSpec(rootCount: 10, nilShare: 0), seed: 2)
        #expect(ValueTransformerRegistry.transformer(named: "ColorTransformer") != nil)
        let (coordinator, directory) = try Self.store(.lmdb, model)
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try ModelPopulator.write(plan, into: coordinator)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        let colours = try context.performAndWait {
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Car")).map {
                $0.value(forKey: "color") as? [String]
            }
        }
        let cars = plan.entities.filter { $0.entity.isKind(of: model.entitiesByName["Car"]!) }.reduce(0) {
            $0 + $1.count
        }
        #expect(cars >= 20)
        #expect(colours.count == cars)
        #expect(colours.allSatisfy { ($0?.count ?? 0) >= 1 })
    }

    /// A bare model with constrained attributes: a unique code matching a pattern, bounded numbers and lengths.
    static let constrainedModel = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Account" representedClassName="Account" syncable="YES">
                <attribute name="code" attributeType="String" regularExpressionString="[A-Z]{2}-\\d{3}(x|yz)?"/>
                <attribute name="level" attributeType="Integer 16" minValueString="3" maxValueString="9" defaultValueString="5"/>
                <attribute name="serial" attributeType="Integer 16" minValueString="100" maxValueString="1000"/>
                <attribute name="nickname" attributeType="String" minValueString="2" maxValueString="4"/>
                <attribute name="score" optional="YES" attributeType="Double" minValueString="-1" maxValueString="1"/>
                <attribute name="joined" attributeType="Date" minValueString="700000000" maxValueString="700100000"/>
                <relationship name="devices" toMany="YES" minCount="2" maxCount="3" deletionRule="Cascade" destinationEntity="Device" inverseName="account" inverseEntity="Device"/>
                <uniquenessConstraints>
                    <uniquenessConstraint><constraint value="code"/></uniquenessConstraint>
                    <uniquenessConstraint><constraint value="serial"/></uniquenessConstraint>
                </uniquenessConstraints>
            </entity>
            <entity name="Device" representedClassName="Device" syncable="YES">
                <attribute name="name" attributeType="String"/>
                <relationship name="account" maxCount="1" deletionRule="Nullify" destinationEntity="Account" inverseName="devices" inverseEntity="Account"/>
            </entity>
        </model>
        """

    /// `xml` as a bare `.xcdatamodel` in a new temporary folder.
    static func bareModel(_ xml: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("population-model-\(UUID().uuidString)")
            .appendingPathComponent("Test.xcdatamodel")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try Data(xml.utf8).write(to: url.appendingPathComponent("contents"))
        return url
    }

    @Test("patterns, bounds, uniqueness and to-many counts hold on every store", arguments: StoreKind.all)
    func constraints(kind: StoreKind) throws {
        let url = try Self.bareModel(Self.constrainedModel)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let model = try ManagedObjectModel(contentsOf: url)
        let plan = try PopulationPlan(model: model, spec: PopulationSpec(rootCount: 300), seed: 9)
        let (coordinator, directory) = try Self.store(kind, model)
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try ModelPopulator.write(plan, into: coordinator)
        let audit = try PopulationAudit(coordinator: coordinator)
        #expect(audit.problems == [])
        #expect(audit.objectsByEntity["Account"] == 300)
        // Every account holds 2 or 3 devices, and every device has its account.
        #expect((600...900).contains(audit.objectsByEntity["Device"] ?? 0))
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        let codes = try context.performAndWait {
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Account")).compactMap {
                $0.value(forKey: "code") as? String
            }
        }
        #expect(codes.count == 300)
        #expect(Set(codes).count == 300)
        #expect(codes.allSatisfy { $0.range(of: "^[A-Z]{2}-[0-9]{3}(x|yz)?$", options: .regularExpression) != nil })
    }

    @Test(
        "a model it cannot populate is refused before any write, naming the entity and attribute",
        arguments: [
            (
                "<attribute name=\"creatorID\" optional=\"YES\" attributeType=\"String\" syncable=\"YES\"/>",
                "<attribute name=\"creatorID\" attributeType=\"String\" regularExpressionString=\"(?=a)b\" syncable=\"YES\"/>",
                "cannot populate Mood.creatorID: required, and its regular expression (?=a)b uses group syntax '(?=' (look-around or flags), which the generator cannot draw from"
            ),
            (
                "<attribute name=\"rating\" attributeType=\"Integer 16\" defaultValueString=\"0\" syncable=\"YES\"/>",
                "<attribute name=\"rating\" attributeType=\"Integer 16\" minValueString=\"10\" maxValueString=\"5\" syncable=\"YES\"/>",
                "cannot populate Mood.rating: required, and its minimum 10.0 is above its maximum 5.0 (for its type)"
            ),
        ])
    func refusesUnpopulatable(original: String, replacement: String, message: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "population-refusal-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let bundle = folder.appendingPathComponent("Moody.xcdatamodeld")
        try FileManager.default.copyItem(at: Self.url("objcio-core-data-Migrations"), to: bundle)
        let contents = bundle.appendingPathComponent("Moody 6.xcdatamodel/contents")
        let xml = try String(contentsOf: contents, encoding: .utf8)
        #expect(xml.contains(original))
        try xml.replacingOccurrences(of: original, with: replacement).write(
            to: contents, atomically: true, encoding: .utf8)

        let model = try ManagedObjectModel(contentsOf: bundle)
        let refusal = #expect(throws: PopulationRefusal.self) {
            try PopulationPlan(model: model, spec: PopulationSpec(rootCount: 5), seed: 1)
        }
        #expect(refusal?.description == message)
        let out = folder.appendingPathComponent("out.sqlite")
        let (status, output) = try StackLabBinary.run([
            "model", "populate", bundle.path, "--objects", "5", "--out", out.path,
        ])
        #expect(status == 2)
        #expect(output.contains(message))
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test("stacklab model populate builds a store that opens with the model's objects")
    func command() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "population-command-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let out = folder.appendingPathComponent("moody.lmdb")
        let (status, output) = try StackLabBinary.run([
            "model", "populate", Self.url("objcio-core-data-Migrations").path, "--objects", "20", "--out", out.path,
            "--store", "lmdb", "--version", "Moody 5", "--seed", "4",
        ])
        #expect(status == 0, "\(output)")
        #expect(output.contains("version Moody 5, seed 4"))
        let versions = try ManagedObjectModel.versions(contentsOf: Self.url("objcio-core-data-Migrations"))
        let coordinator = PersistentStoreCoordinator(managedObjectModel: versions.first { $0.name == "Moody 5" }!.model)
        _ = try coordinator.addPersistentStore(type: .lmdb, at: out)
        let audit = try PopulationAudit(coordinator: coordinator)
        #expect(audit.problems == [])
        #expect(audit.objectsByEntity["Country"] == 20)
        // The spelling from before the subcommands reaches the same subcommand, which refuses to overwrite.
        let again = try StackLabBinary.run([
            "model", Self.url("objcio-core-data-Migrations").path, "--populate", "20", "--out", out.path,
        ])
        #expect(again.status == 2)
        #expect(again.output.contains("already exists"))
    }

    @Test(
        "the regular-expression sampler draws matching strings and refuses what it does not understand",
        arguments: [
            "^[abcdefghijklmnorstuvwxyz]*$", "[A-Z]{2}-\\d{3}(x|yz)?", "(?:ab|c+)\\.[^,;]{2,4}",
            "\\w+@\\w+\\.(com|org)", "a?b*c{3,}",
            // Core-Data-Editor's e-mail check, anchored with \A and \z; the negated shorthands.
            "\\A[^@]+@([^@\\.]+\\.)+[^@\\.]+\\z", "\\D{2}\\W\\S+\\Z",
        ])
    func regexSampler(pattern: String) throws {
        let sampler = try RegexSampler(pattern)
        var random = SplitMix64(seed: 1)
        for _ in 0..<200 {
            let text = sampler.sample(using: &random)
            #expect(sampler.matches(text), "\(text) does not match \(pattern)")
        }
    }

    @Test(
        "patterns with look-around, back-references or classes it cannot read are refused",
        arguments: ["(?=a)b", "(a)\\1", "[[:alpha:]]", "\\p{L}+", "a{2"])
    func regexSamplerRefuses(pattern: String) {
        #expect(throws: RegexSampler.Unsupported.self) { try RegexSampler(pattern) }
    }
}
