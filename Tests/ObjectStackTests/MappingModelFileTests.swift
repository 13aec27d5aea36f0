import Foundation
import Testing

@testable import ObjectStack

/// Xcode mapping models read from the corpus (`shared/coredata-stores`): what each holds, as Xcode's compiled form
/// holds it; the two versions of its bundle it fits; and a file that is not one, or does not fit, refused with the
/// file, mapping and property named.
@Suite("Mapping model files", .enabled(if: CoreDataStoreCorpus.shared != nil, "no shared/coredata-stores"))
struct MappingModelFileTests {
    static let entries = CoreDataStoreCorpus.shared?.mappingModels ?? []

    static func entry(_ name: String) throws -> CoreDataStoreCorpus.MappingModel {
        try #require(entries.first { $0.url.lastPathComponent == name + ".xcmappingmodel" })
    }

    static func versions(_ entry: CoreDataStoreCorpus.MappingModel) throws -> [ModelVersion] {
        try ManagedObjectModel.versions(contentsOf: try #require(entry.bundles.first))
    }

    /// The mapping's expressions as `name = expression` lines (`nil` for none), attributes then relationships.
    static func lines(_ mapping: EntityMapping) -> [String] {
        (mapping.attributeMappings + mapping.relationshipMappings).map {
            "\($0.name) = \($0.valueExpression?.description ?? "nil")"
        }
    }

    @Test("CoreDataPlus's V2toV3 reads as its compiled V2toV3.cdm holds it: names, kinds, order, expressions")
    func compiledForm() throws {
        let mapping = try Self.entry("V2toV3").read()
        #expect(
            mapping.entityMappings.map(\.name) == [
                "CarToCar", "LuxuryCarToLuxuryCar", "PersonToPerson", "SportCarToSportCar", "Maker",
            ])
        #expect(mapping.entityMappings.map(\.kind) == [.custom, .custom, .copy, .custom, .add])
        #expect(
            mapping.entityMapping(named: "CarToCar")?.entityMigrationPolicyClassName
                == "REPLACE_AT_RUNTIME.V2to3MakerPolicy")
        let manager = "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", "
        #expect(
            Self.lines(try #require(mapping.entityMapping(named: "CarToCar"))) == [
                "markedForDeletionAsOf = $source.markedForDeletionAsOf", "model = $source.model",
                "numberPlate = $source.numberPlate", "createdBy = nil",
                "owner = \(manager)\"PersonToPerson\", $source.owner)",
                "previousOwners = \(manager)\"PersonToPerson\", $source.owner)",
            ])
        // Car has sub-entities, each with its own mapping: the relationship reaches them through the source
        // relationship, as the compiled form does.
        #expect(
            Self.lines(try #require(mapping.entityMapping(named: "PersonToPerson"))).suffix(2) == [
                "cars = FUNCTION($manager, \"destinationInstancesForSourceRelationshipNamed:sourceInstances:\", \"cars\", $source.cars)",
                "previousCars = FUNCTION($manager, \"destinationInstancesForSourceRelationshipNamed:sourceInstances:\", \"cars\", $source.cars)",
            ])
        #expect(Self.lines(try #require(mapping.entityMapping(named: "Maker"))) == ["name = nil", "cars = nil"])
        #expect(
            mapping.entityMapping(named: "CarToCar")?.sourceExpression?.contains("fetchRequestForSourceEntityNamed")
                == true)
    }

    @Test("objc.io's Moody 2-Moody 3 keeps its source key paths and mapping names; orphaned mappings are noted")
    func sourceKeyPaths() throws {
        let mapping = try Self.entry("Moody 2-Moody 3").read()
        let continent = try #require(mapping.entityMapping(named: "ContinentToContinent"))
        #expect(
            Self.lines(continent).last
                == "moods = FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", "
                + "\"MoodToMood\", $source.countries.@distinctUnionOfSets.moods)")
        #expect(mapping.notes.count == 2)
        #expect(mapping.notes.allSatisfy { $0.contains("belongs to no entity mapping") })
    }

    @Test("each mapping model fits the two versions its paths name", arguments: entries)
    func fitsItsVersions(_ entry: CoreDataStoreCorpus.MappingModel) throws {
        let mapping = try entry.read()
        let (source, destination) = try mapping.versions(in: try Self.versions(entry))
        let tail = { (path: String?) in path?.split(separator: "/").last.map(String.init) }
        #expect(source.url.lastPathComponent == tail(mapping.sourceModelPath))
        #expect(destination.url.lastPathComponent == tail(mapping.destinationModelPath))
        #expect(mapping.maps(from: source, to: destination))
        #expect(!mapping.maps(from: destination, to: source))
    }

    @Test("a mapping model whose paths name no version still fits the versions its copies' names match")
    func renamedVersions() throws {
        var mapping = try Self.entry("Moody 3-Moody 4").read()
        mapping.sourceModelPath = "Elsewhere.xcdatamodeld/Old.xcdatamodel"
        mapping.destinationModelPath = nil
        let (source, destination) = try mapping.versions(in: try Self.versions(try Self.entry("Moody 3-Moody 4")))
        #expect(source.name == "Moody 3" && destination.name == "Moody 4")
    }

    @Test("a mapping model that fits no pair of versions is refused naming both sides")
    func fitsNoPair() throws {
        let mapping = try Self.entry("Moody 2-Moody 3").read()
        let wibosco = try #require(Self.entries.first { $0.folder == "wibosco+CoreDataMigration-Example" })
        let error = try #require(throws: ObjectStackError.self) {
            try mapping.versions(in: try Self.versions(wibosco))
        }
        #expect(error.code == .invalidMappingModel)
        #expect(
            error.message.contains("source: 'Migrations/Moody.xcdatamodeld/Moody 2.xcdatamodel'"), "\(error.message)")
        #expect(
            error.message.contains("destination: 'Migrations/Moody.xcdatamodeld/Moody 3.xcdatamodel'"),
            "\(error.message)")
        // The right bundle, without the destination version: the source side fits, the destination names why not.
        let moody = try Self.versions(try Self.entry("Moody 2-Moody 3")).filter { $0.name != "Moody 3" }
        let partial = try #require(throws: ObjectStackError.self) { try mapping.versions(in: moody) }
        #expect(partial.message.contains("source: fits Moody 2"), "\(partial.message)")
        #expect(partial.message.contains("destination:") && partial.message.contains("differs"), "\(partial.message)")
    }

    // MARK: - Files that are not mapping models

    /// A copy of a corpus mapping model's xcmapping.xml with `edit` applied, in a fresh folder.
    static func edited(_ name: String, _ edit: (String) -> String) throws -> URL {
        let text = try String(contentsOf: try entry(name).url.appendingPathComponent("xcmapping.xml"), encoding: .utf8)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "mapping-\(UUID().uuidString)/\(name).xcmappingmodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try edit(text).write(to: folder.appendingPathComponent("xcmapping.xml"), atomically: true, encoding: .utf8)
        return folder
    }

    /// A way to spoil a mapping model file: text replaced (all of the second half, when `find` is empty), and what
    /// the error must then say.
    struct Spoiling: Sendable, CustomTestStringConvertible {
        let label: String
        let find: String
        let replacement: String
        let reason: String
        var testDescription: String { label }

        func apply(_ text: String) -> String {
            find.isEmpty ? String(text.prefix(text.count / 2)) : text.replacingOccurrences(of: find, with: replacement)
        }
    }

    static let spoilings = [
        Spoiling(label: "truncated XML", find: "", replacement: "", reason: "malformed XML"),
        Spoiling(
            label: "no mapping model object", find: "XDDEVMAPPINGMODEL", replacement: "XDDEVSOMETHING",
            reason: "holds no XDDEVMAPPINGMODEL"),
        Spoiling(
            label: "an entity the destination model lacks",
            find: "<attribute name=\"destinationname\" type=\"string\">Continent<",
            replacement: "<attribute name=\"destinationname\" type=\"string\">Bogus<", reason: "maps to Bogus"),
        Spoiling(
            label: "an archived model that does not read",
            find: "<attribute name=\"sourcemodeldata\" type=\"binary\">",
            replacement: "<attribute name=\"sourcemodeldata\" type=\"binary\">AAAA", reason: "source model's copy"),
        Spoiling(
            label: "a filter this reader does not know", find: "<attribute name=\"mappingtypename\"",
            replacement: "<attribute name=\"filterpredicatecode\" type=\"string\">x</attribute>"
                + "<attribute name=\"mappingtypename\"", reason: "filterpredicatecode"),
    ]

    @Test(
        "a file that is not a mapping model, or does not hold together, is refused naming the file, mapping and property",
        arguments: spoilings)
    func refused(_ spoiling: Spoiling) throws {
        let url = try Self.edited("Moody 5-Moody 6", spoiling.apply)
        let error = try #require(throws: ObjectStackError.self) { try MappingModel(contentsOf: url) }
        #expect(error.code == .invalidMappingModel)
        #expect(error.message.contains(url.appendingPathComponent("xcmapping.xml").path), "\(error.message)")
        #expect(error.message.contains(spoiling.reason), "\(error.message)")
    }

    @Test("a value expression that does not read names its mapping and property")
    func unreadableExpression() throws {
        let url = try Self.edited("Moody 4-Moody 5") {
            $0.replacingOccurrences(
                of: "<attribute name=\"valueexpressiondata\" type=\"binary\">YnBsaXN0",
                with: "<attribute name=\"valueexpressiondata\" type=\"binary\">AAAAYnBsaXN0")
        }
        let error = try #require(throws: ObjectStackError.self) { try MappingModel(contentsOf: url) }
        #expect(error.message.contains("CountryToCountry.isoContinent"), "\(error.message)")
    }
}
