import Foundation
import Testing

@testable import LabWorkloads

/// A scenario's `import_key:`: the import finds an entity's objects by the attributes it names (an entity
/// without a uniqueness constraint, here), so importing the same pages twice makes no duplicates; a key naming
/// an attribute the entity does not store is refused when the scenario is read, naming file, entity and attribute.
@Suite("import_key in a scenario")
struct ImportKeyScenarioTests {
    /// Shelves with no uniqueness constraint but a code drawn from a billion values; books unique by ISBN.
    static let library = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            <entity name="Shelf" syncable="YES">
                <attribute name="code" attributeType="Integer 64" minValueString="1" maxValueString="1000000000"/>
                <attribute name="label" optional="YES" attributeType="String"/>
                <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="shelf" inverseEntity="Book"/>
            </entity>
            <entity name="Book" syncable="YES">
                <attribute name="isbn" attributeType="String"/>
                <relationship name="shelf" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Shelf" inverseName="books" inverseEntity="Shelf"/>
                <uniquenessConstraints>
                    <uniquenessConstraint>
                        <constraint value="isbn"/>
                    </uniquenessConstraint>
                </uniquenessConstraints>
            </entity>
        </model>
        """

    /// A folder holding `Library.xcdatamodel`.
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("import-key-\(UUID())")
        let model = folder.appendingPathComponent("Library.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try library.write(to: model.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        return folder
    }

    /// The import of the library's population in quick mode, once and imported again, on every store.
    @MainActor
    func run(importKey: String, in folder: URL) async throws -> [RunResult] {
        let text = """
            name: shelves
            workload: import
            model: Library.xcdatamodel
            population: {count: 8, children: 1-3}
            first_screen: {entity: Shelf}
            \(importKey)
            parameters: {strategy: shared-coordinator, page_size: 5}
            matrix:
              store: [sqlite, lmdb, memory]
              reimport: [false, true]
            """
        let scenario = try ScenarioFile.parse(text, file: folder.appendingPathComponent("shelves.yaml"))
        let runner = ScenarioRunner(
            options: .init(outDirectory: folder.appendingPathComponent("out"), quick: true),
            progress: ProgressReporter(isTerminal: false) { _ in })
        return try await runner.run(runner.prepared(scenario))
    }

    @Test("import_key: Shelf found by code, so a second import of the same pages adds no shelf")
    @MainActor
    func findsByKey() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let keyed = try await run(importKey: "import_key: {Shelf: code}", in: folder)
        #expect(keyed.count == 6)
        for result in keyed {
            #expect(result.error == nil, "\(result.error ?? "")")
            // The 8 shelves and their books, after one import or two: the store holds what one import imports.
            #expect((result.metrics[.objects] ?? 0) > 8)
            #expect(result.metrics[.storedObjects] == result.metrics[.objects])
        }
        // Without the key the shelves have nothing to be found by: the second import makes the 8 shelves again.
        let unkeyed = try await run(importKey: "", in: folder)
        for result in unkeyed {
            #expect(result.error == nil, "\(result.error ?? "")")
            let again = result.cell.parameters["reimport"] == .boolean(true) ? 8.0 : 0
            #expect(result.metrics[.storedObjects] == (result.metrics[.objects] ?? 0) + again)
        }
    }

    @Test(
        "an import_key naming an attribute the entity does not store, or an unknown entity, is refused with its place")
    func refused() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("shelves.yaml")
        func parse(_ key: String) -> LabError? {
            return #expect(throws: LabError.self) {
                try ScenarioFile.parse(
                    "name: shelves\nworkload: import\nmodel: Library.xcdatamodel\n\(key)\n", file: file)
            }
        }
        let attribute = parse("import_key:\n  Shelf: colour")
        #expect(
            attribute?.message.hasPrefix(
                "\(file.path):5: import_key Shelf.colour: Shelf has no stored attribute 'colour' to find its objects by; "
                    + "expected one of code, label") == true, "\(attribute?.message ?? "")")
        let entity = parse("import_key: {Planet: code}")
        #expect(
            entity?.message.hasPrefix("\(file.path):4: import_key names entity 'Planet', which Library does not have")
                == true, "\(entity?.message ?? "")")
        let builtin = #expect(throws: LabError.self) {
            try ScenarioFile.parse("name: pods\nworkload: import\nimport_key: {Pod: name}\n", file: file)
        }
        #expect(builtin?.message.contains("import_key applies to a model file") == true)
        let mix = #expect(throws: LabError.self) {
            try ScenarioFile.parse(
                "name: mix\nworkload: read-write-mix\nmodel: Library.xcdatamodel\nimport_key: {Shelf: code}\n",
                file: file)
        }
        #expect(
            mix?.message == "\(file.path):4: import_key names what an import finds objects by; workload read-write-mix "
                + "imports nothing, expected it only with workload: import")
    }
}
