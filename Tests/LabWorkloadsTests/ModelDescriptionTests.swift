import Foundation
import LabWorkloads
import ObjectStack
import TestSupport
import Testing

/// `stacklab model`: the text and JSON descriptions of a model file.
@Suite("stacklab model")
struct ModelDescriptionTests {
    struct JSONVersion: Decodable, Equatable {
        let name: String
        let current: Bool
        let entities, attributes, relationships, fetchedProperties, fetchIndexes, uniquenessConstraints: Int
    }

    @Test("--json gives each version's declared counts, the current one marked")
    func json() throws {
        let description = try ModelDescription(contentsOf: SharedModels.url("SwiftGen", "Model.xcdatamodeld"))
        let text = try description.json()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(Array(object.keys) == ["versions"])
        let versions = try JSONDecoder().decode([String: [JSONVersion]].self, from: Data(text.utf8))["versions"]
        // From the shared models README's table.
        #expect(
            versions == [
                JSONVersion(
                    name: "Model", current: false, entities: 3, attributes: 14, relationships: 6, fetchedProperties: 0,
                    fetchIndexes: 0, uniquenessConstraints: 0),
                JSONVersion(
                    name: "Model 2", current: true, entities: 8, attributes: 32, relationships: 6, fetchedProperties: 1,
                    fetchIndexes: 1, uniquenessConstraints: 1),
            ])
        let keys = try #require((object["versions"] as? [[String: Any]])?.first?.keys)
        #expect(
            Set(keys) == [
                "name", "current", "entities", "attributes", "relationships", "fetchedProperties",
                "fetchIndexes", "uniquenessConstraints",
            ])
    }

    @Test("the text lists versions, entities, properties, indexes, constraints and each migration")
    func text() throws {
        let description = try ModelDescription(
            contentsOf: SharedModels.url("objcio-core-data-Migrations", "Moody.xcdatamodeld"))
        let lines = description.text.components(separatedBy: "\n")
        #expect(lines.first == "Moody.xcdatamodeld: 6 versions, current: Moody 6")
        #expect(
            lines.filter { $0.hasPrefix("== ") } == [
                "== Moody", "== Moody 2", "== Moody 3", "== Moody 4", "== Moody 5", "== Moody 6 (current)",
            ])
        let moody2 = Self.section("== Moody 2", in: lines)
        #expect(moody2.contains("  entity Continent : GeographicRegion"))
        #expect(moody2.contains("  entity GeographicRegion (abstract)"))
        #expect(moody2.contains("    attribute remoteID: string, optional, indexed, renaming id remoteIdentifier"))
        #expect(moody2.contains("    attribute rating: integer16, required, default 0"))
        #expect(moody2.contains("    relationship country: -> Country, to-one, inverse moods, delete rule nullify"))
        #expect(moody2.contains("    unique (numericISO3166Code, uniquenessDummy)"))
        #expect(
            moody2.contains("    index compound_markedForDeletionDate_updatedAt (markedForDeletionDate, updatedAt)"))
        #expect(
            Array(moody2.suffix(4)) == [
                "  migration from Moody:",
                "    attribute Mood.rating added",
                "    attribute Mood.remoteIdentifier renamed to remoteID",
                "    lightweight: yes",
            ])
        #expect(Self.section("== Moody", in: lines).last == "  migration: first version")
    }

    @Test("a migration a lightweight migration cannot infer says why (SwiftGen Model -> Model 2)")
    func notLightweight() throws {
        let description = try ModelDescription(contentsOf: SharedModels.url("SwiftGen", "Model.xcdatamodeld"))
        let section = Self.section("== Model 2 (current)", in: description.text.components(separatedBy: "\n"))
        // Printed as NSPredicate prints "TRUE == TRUE": booleans as numbers.
        #expect(section.contains("    fetched property fetchedProperty: NewEntity where 1 == 1"))
        #expect(section.contains("  fetch request ObjectFetchRequest: MainEntity where uuid == $UUID"))
        #expect(section.contains("  configuration Custom: NewEntity"))
        #expect(section.contains("    lightweight: no"))
        #expect(section.contains("      - attribute ChildEntity.boolean becomes required without a default value"))
    }

    @Test("index notes are shown with their line, and strict reading loads them (wikipedia-ios)")
    func notes() throws {
        let description = try ModelDescription(
            contentsOf: SharedModels.url("wikipedia-ios", "Wikipedia.xcdatamodeld"), options: .strict)
        let section = Self.section("== Wikipedia 6 (current)", in: description.text.components(separatedBy: "\n"))
        #expect(section.filter { $0.hasPrefix("  note: line ") }.count == 2)
        #expect(!section.contains { $0.hasPrefix("  warning:") })
    }

    @Test("a bad path is a ModelFileError naming it")
    func badPath() {
        let error = #expect(throws: ModelFileError.self) {
            try ModelDescription(contentsOf: URL(fileURLWithPath: "/nonexistent/Model.xcdatamodeld"))
        }
        #expect(error?.file == "/nonexistent/Model.xcdatamodeld")
    }

    /// The lines of one version's section: from its header to the next header.
    static func section(_ header: String, in lines: [String]) -> [String] {
        guard let start = lines.firstIndex(of: header) else { return [] }
        let rest = lines[(start + 1)...]
        let end = rest.firstIndex { $0.hasPrefix("== ") } ?? lines.endIndex
        return Array(lines[start..<end]).filter { !$0.isEmpty }
    }
}
