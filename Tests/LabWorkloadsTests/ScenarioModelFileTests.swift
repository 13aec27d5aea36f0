import Foundation
import TestSupport
import Testing

@testable import LabWorkloads

/// A scenario's `model:` naming a model file: loaded relative to the scenario, at the version `version:` picks,
/// with its `population:` and `first_screen:`; every problem reported with the file and line. (A workload that does
/// not take model files refuses it: `EngineOverheadModelFileTests`.)
@Suite("Scenario model files")
struct ScenarioModelFileTests {
    /// A folder holding a copy of the Moody bundle under `Models/` and, optionally, a broken model.
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scenario-model-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("Models"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: SharedModels.url("objcio-core-data-Migrations", "Moody.xcdatamodeld"),
            to: folder.appendingPathComponent("Models/Moody.xcdatamodeld"))
        let broken = folder.appendingPathComponent("Models/Broken.xcdatamodel")
        try FileManager.default.createDirectory(at: broken, withIntermediateDirectories: true)
        try Data("<model><entity name=\"A\"><attribute name=\"x\" attributeType=\"Colour\"/></entity></model>".utf8)
            .write(to: broken.appendingPathComponent("contents"))
        return folder
    }

    static func text(
        model: String = "Models/Moody.xcdatamodeld", extra: String = "", workload: String = "import"
    ) -> String {
        """
        name: mine
        workload: \(workload)
        model: \(model)
        \(extra)
        parameters:
          store: sqlite
          strategy: shared-coordinator
        """
    }

    func parse(_ text: String, in folder: URL) throws -> Scenario {
        try ScenarioFile.parse(text, file: folder.appendingPathComponent("mine.yaml"))
    }

    func message(_ text: String, in folder: URL) -> String {
        do {
            _ = try parse(text, in: folder)
            return "no error"
        } catch let error as LabError {
            return error.message
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test("a model file loads relative to the scenario, at its current version by default or the one version: picks")
    func loads() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let current = try parse(Self.text(), in: folder)
        #expect(current.model == .file("Models/Moody.xcdatamodeld"))
        #expect(current.modelFile?.version.name == "Moody 6")
        #expect(current.modelFile?.model.entitiesByName["Mood"] != nil)
        #expect(current.population == PopulationSpec())

        let older = try parse(
            Self.text(
                extra: """
                    version: Moody 5
                    population:
                      count: 20
                      children: 1-3
                      Mood: 2.5
                    """), in: folder)
        #expect(older.modelFile?.version.name == "Moody 5")
        #expect(older.modelFile?.model.entitiesByName["Continent"] == nil)
        #expect(older.population == PopulationSpec(rootCount: 20, counts: ["Mood": .ratio(2.5)], children: 1...3))
    }

    @Test(
        "a missing path, an unknown version, a file the reader refuses and a bad population are explained with their line"
    )
    func errors() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("mine.yaml").path
        #expect(
            message(Self.text(model: "Models/Gone.xcdatamodeld"), in: folder)
                == "\(file):3: no model file at \(folder.path)/Models/Gone.xcdatamodeld (Models/Gone.xcdatamodeld, relative to \(folder.path))"
        )
        #expect(
            message(Self.text(extra: "version: Moody 9"), in: folder)
                == "\(file):4: the model file Moody.xcdatamodeld has no version 'Moody 9'; expected one of 'Moody', 'Moody 2', "
                + "'Moody 3', 'Moody 4', 'Moody 5', 'Moody 6'")
        let broken = message(Self.text(model: "Models/Broken.xcdatamodel"), in: folder)
        #expect(
            broken.hasPrefix(
                "\(file):3: the model file \(folder.path)/Models/Broken.xcdatamodel does not load: "
                    + "\(folder.path)/Models/Broken.xcdatamodel/contents:1:"))
        #expect(
            message(Self.text(extra: "population:\n  Planet: 3"), in: folder)
                == "\(file):5: population names entity 'Planet', which Moody 6 does not have; expected count, children or one of Continent, Country, Mood"
        )
        #expect(
            message(Self.text(extra: "population:\n  count: many"), in: folder)
                == "\(file):5: population count is 'many'; expected an integer ≥ 0")
        #expect(
            message(Self.text(model: "builtin:pods", extra: "version: Moody 5"), in: folder)
                == "\(file):4: version applies to a model file; model builtin:pods is built in")
    }

    @Test("a model the generator cannot populate is refused when the scenario loads")
    func unpopulatable() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let contents = folder.appendingPathComponent("Models/Moody.xcdatamodeld/Moody 6.xcdatamodel/contents")
        let xml = try String(contentsOf: contents, encoding: .utf8).replacingOccurrences(
            of: "<attribute name=\"rating\" attributeType=\"Integer 16\" defaultValueString=\"0\" syncable=\"YES\"/>",
            with:
                "<attribute name=\"rating\" attributeType=\"Integer 16\" minValueString=\"10\" maxValueString=\"5\" syncable=\"YES\"/>"
        )
        try xml.write(to: contents, atomically: true, encoding: .utf8)
        #expect(
            message(Self.text(), in: folder).hasSuffix(
                ":3: cannot populate Mood.rating: required, and its minimum 10.0 is above its maximum 5.0 (for its type)"
            ))
    }

    @Test("first_screen: is read as written; a bad key, a limit below 1 or a built-in model is refused with its line")
    func firstScreen() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("mine.yaml").path
        let screen = try parse(
            Self.text(extra: "first_screen:\n  entity: Mood\n  sort: -date\n  predicate: rating > 1\n  limit: 20"),
            in: folder)
        #expect(
            screen.firstScreen == FirstScreenSpec(entity: "Mood", sort: ["-date"], predicate: "rating > 1", limit: 20))
        #expect(try parse(Self.text(), in: folder).firstScreen == nil)
        #expect(
            message(Self.text(extra: "first_screen:\n  rows: 20"), in: folder)
                == "\(file):5: unknown key 'rows' in first_screen; expected one of entity, sort, predicate, limit")
        #expect(
            message(Self.text(extra: "first_screen:\n  limit: 0"), in: folder)
                == "\(file):5: first_screen limit is 0; expected an integer ≥ 1")
        #expect(
            message(Self.text(model: "builtin:pods", extra: "first_screen:\n  limit: 5"), in: folder)
                == "\(file):4: first_screen applies to a model file; model builtin:pods is built in")
    }
}
