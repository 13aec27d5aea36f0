import Foundation
import ObjectStack
import Testing

@testable import LabWorkloads

/// The models with composite attributes (`shared/model-extra`): each loads under strict reading and imports in the
/// lab on all three stores (quick, a shared coordinator), every object stored and no error row.
enum ModelExtra {
    /// `shared/model-extra` beside the repository.
    static let root: URL? = {
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent("shared/model-extra")
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("manifest.json").path) {
                return candidate
            }
            folder.deleteLastPathComponent()
        }
        return nil
    }()

    /// The bundles the manifest lists.
    static let bundles: [URL] = {
        guard let root, let data = try? Data(contentsOf: root.appendingPathComponent("manifest.json")),
            let manifest = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return [] }
        return (manifest["bundles"] as? [[String: Any]] ?? []).compactMap { entry in
            guard let folder = entry["folder"] as? String, let bundle = entry["bundle"] as? String else { return nil }
            return root.appendingPathComponent(folder).appendingPathComponent(bundle)
        }
    }()
}

@Suite("Models with composite attributes", .enabled(if: ModelExtra.root != nil, "no shared/model-extra"))
struct ModelExtraRunTests {
    static let bundles = ModelExtra.bundles

    @Test("the manifest lists both bundles, and each loads strictly with its composite attributes")
    func loadsStrictly() throws {
        #expect(Self.bundles.count == 2)
        for bundle in Self.bundles {
            let model = try ManagedObjectModel(contentsOf: bundle, options: .strict)
            let composites = model.entities.flatMap(\.compositeAttributes)
            #expect(!composites.isEmpty, "\(bundle.lastPathComponent)")
            for entity in model.entities {
                for composite in entity.compositeAttributes {
                    for path in composite.elementPaths {
                        #expect(entity.attributesByName[composite.name + "." + path] != nil, "\(entity.name).\(path)")
                    }
                }
            }
        }
    }

    @Test(
        "import, quick, a shared coordinator on 3 stores: a row per cell, every object stored, no error",
        arguments: bundles)
    @MainActor
    func imports(_ bundle: URL) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("extra-run-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = """
            name: extra-run
            workload: import
            model: "\(bundle.path)"
            repetitions: 1
            matrix:
              store: [sqlite, lmdb, memory]
              strategy: [shared-coordinator]
            """
        let scenario = try ScenarioFile.parse(text, file: folder.appendingPathComponent("extra-run.yaml"))
        let runner = ScenarioRunner(
            options: .init(outDirectory: folder, quick: true), progress: ProgressReporter(isTerminal: false) { _ in })
        let results = try await runner.run(runner.prepared(scenario))
        #expect(results.count == 3)
        for result in results {
            #expect(result.error == nil, "\(bundle.lastPathComponent) \(result.cell.parameters): \(result.error ?? "")")
            let objects = try #require(result.metrics[.objects])
            #expect(objects > 0)
            #expect(result.metrics[.storedObjects] == objects)
        }
    }
}
