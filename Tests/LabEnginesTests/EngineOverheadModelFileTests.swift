import Foundation
import LabEngines
import LabWorkloads
import TestSupport
import Testing

/// The engine comparison runs on the built-in pods only: a scenario naming a model file is refused before any run.
@Suite("Engine overhead and model files")
struct EngineOverheadModelFileTests {
    /// A folder holding a copy of the Moody bundle under `Models/`.
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "engine-model-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("Models"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: SharedModels.url("objcio-core-data-Migrations", "Moody.xcdatamodeld"),
            to: folder.appendingPathComponent("Models/Moody.xcdatamodeld"))
        return folder
    }

    @Test("a workload that runs on the built-in pods only refuses a model file with a clear message, before any run")
    @MainActor
    func workloadsRefuse() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = """
            name: mine
            workload: engine-overhead
            model: Models/Moody.xcdatamodeld
            parameters: {store: sqlite, implementation: objectstack, operation: insert}
            """
        let scenario = try ScenarioFile.parse(
            text, file: folder.appendingPathComponent("mine.yaml"), workloads: .engines)
        let refusal = #expect(throws: LabError.self) { try scenario.validate(filters: [:]) }
        #expect(refusal?.code == .unsupported)
        #expect(
            refusal?.message.contains(
                "workload engine-overhead runs on built-in models only; model file Models/Moody.xcdatamodeld "
                    + "(loaded: version Moody 6, 3 entities) cannot run on it") == true)
        let runner = ScenarioRunner(
            options: .init(outDirectory: folder.appendingPathComponent("results")),
            progress: ProgressReporter(isTerminal: false) { _ in })
        await #expect(throws: LabError.self) { try await runner.run(scenario) }
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("results/mine.csv").path))
    }

    @Test("the shipped engine-overhead scenario loads")
    func shippedScenario() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Scenarios/engine-overhead.yaml")
        let scenario = try ScenarioFile.load(url, workloads: .engines)
        #expect(scenario.name == "engine-overhead")
        #expect(!scenario.about.isEmpty, "the file says what it answers in its header")
    }
}
