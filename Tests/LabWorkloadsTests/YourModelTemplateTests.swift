import Foundation
import TestSupport
import Testing

@testable import LabWorkloads

/// `Scenarios/your-model.yaml` on every real model of the shared set: the template as shipped, pointed at each
/// model with a tiny population, in quick mode on the three stores, gives one row per store and no error.
@Suite("The your-model template on every shared model")
struct YourModelTemplateTests {
    static let template = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Scenarios/your-model.yaml").standardized

    /// Every model bundle of the shared set: each `.xcdatamodeld`, and each bare `.xcdatamodel` outside one.
    static let models: [String] = {
        let manager = FileManager.default
        let folders = (try? manager.contentsOfDirectory(atPath: SharedModels.directory.path)) ?? []
        return folders.sorted().flatMap { folder -> [String] in
            let path = SharedModels.directory.appendingPathComponent(folder).path
            let entries = (try? manager.contentsOfDirectory(atPath: path)) ?? []
            let bundles = entries.filter { $0.hasSuffix(".xcdatamodeld") }
            let bare = entries.filter { $0.hasSuffix(".xcdatamodel") }
            return (bundles.isEmpty ? bare : bundles).sorted().map { "\(path)/\($0)" }
        }
    }()

    @Test("the shared set is there: every model the issue names")
    func sharedSet() {
        #expect(Self.models.count >= 13)
    }

    @Test("stacklab run of the template, quick, all three stores: no error row", arguments: models)
    @MainActor
    func template(_ model: String) async throws {
        let text = try String(contentsOf: Self.template, encoding: .utf8)
        #expect(text.contains("model: models/Moody.xcdatamodeld\n") && text.contains("  count: 200 "))
        let pointed = text.replacingOccurrences(
            of: "model: models/Moody.xcdatamodeld\n", with: "model: \(model)\n"
        ).replacingOccurrences(of: "  count: 200 ", with: "  count: 4 ")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("your-model-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let scenario = try ScenarioFile.parse(pointed, file: Self.template)
        try scenario.validate(filters: ["strategy": ["shared-coordinator"]])
        let runner = ScenarioRunner(
            options: .init(outDirectory: folder, quick: true, filters: ["strategy": ["shared-coordinator"]]),
            progress: ProgressReporter(isTerminal: false) { _ in })
        let results = try await runner.run(runner.prepared(scenario))
        #expect(results.map { $0.cell.parameters["store"]?.description } == ["sqlite", "lmdb", "memory"])
        for result in results {
            #expect(result.error == nil, "\(model): \(result.error ?? "")")
            #expect((result.metrics[.fetches] ?? 0) > 0)
            #expect((result.metrics[.storedObjects] ?? 0) > 0)
        }
    }
}
