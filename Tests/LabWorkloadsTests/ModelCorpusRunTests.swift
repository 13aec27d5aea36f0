import Foundation
import Testing

@testable import LabWorkloads

/// Real models run, as a new user runs them: the model-file import workload, quick, on the three stores by two
/// strategies, with no `population:` line, gives a row per cell and no error. A fixed sample of bundles CI always has
/// (`shared/models`), and of the corpus of `shared/model-corpus` when it is laid out; `scripts/run-model-corpus.sh`
/// runs every bundle of both.
@Suite("Model corpus runs: the import on real models, no population given")
struct ModelCorpusRunTests {
    /// The sample, by corpus entry name (`folder/bundle`): transformables with a named secure-coding transformer,
    /// derived attributes, inheritance, ordered many-to-many, compound uniqueness constraints; from the corpus,
    /// uniqueness constraints, a fetch index and external binary data, the largest model, abstract entities and
    /// fetched properties, date ranges and regular expressions, one-to-ones.
    static let sample = [
        "wikipedia-ios/Wikipedia.xcdatamodeld", "SwiftGen/Model.xcdatamodeld", "CoreDataPlus/SampleModel.xcdatamodeld",
        "Sync/151-ordered-many-to-many.xcdatamodeld", "objcio-core-data-Migrations/Moody.xcdatamodeld",
        "matrix-org+matrix-ios-sdk/MatrixSDK/Data/RoomSummaryStore/CoreData/MXCoreDataRoomSummaryStore.xcdatamodeld",
        "deeje+CloudCore/Example/Resources/Model.xcdatamodeld",
        "inaturalist+INaturalistIOS/INaturalistIOS/INaturalist.xcdatamodeld",
        "atomicbird+momcom/momcomTests/momcomTests.xcdatamodeld",
        "ChristianKienle+Core-Data-Editor/iOS Example/iOS Example/iOS_Example.xcdatamodel",
        "hyperoslo+Sync/Tests/Sync/Models/Patients.xcdatamodeld",
    ]

    /// The sample's bundles found beside the repository (or in `$STACKLAB_MODEL_CORPUS`).
    static let bundles: [ModelCorpus.Entry] = {
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let entries = ModelCorpus.locations(from: here).flatMap { (try? ModelCorpus(root: $0))?.entries ?? [] }
        return sample.compactMap { name in entries.first { $0.name == name } }
    }()

    @Test("the shared models' part of the sample is always there")
    func found() {
        #expect(Self.bundles.count >= 5, "\(Self.bundles.map(\.name))")
    }

    @Test("import, quick, 3 stores x 2 strategies, no population: a row per cell and no error", arguments: bundles)
    @MainActor
    func runs(_ entry: ModelCorpus.Entry) async throws {
        let bundle = try #require(entry.url)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("corpus-run-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = """
            name: corpus-run
            workload: import
            model: "\(bundle.path)"
            repetitions: 1
            matrix:
              store: [sqlite, lmdb, memory]
              strategy: [shared-coordinator, separate-stacks]
            """
        let scenario = try ScenarioFile.parse(text, file: folder.appendingPathComponent("corpus-run.yaml"))
        let runner = ScenarioRunner(
            options: .init(outDirectory: folder, quick: true), progress: ProgressReporter(isTerminal: false) { _ in })
        let results = try await runner.run(runner.prepared(scenario))
        #expect(results.count == 6)
        let planned = try #require(scenario.population).rootCount
        #expect(planned == PopulationSpec().rootCount)
        for result in results {
            #expect(result.error == nil, "\(entry.name) \(result.cell.parameters): \(result.error ?? "")")
            let objects = try #require(result.metrics[.objects])
            #expect(objects > 0)
            // Every imported object is in the store at the end, and nothing else.
            #expect(result.metrics[.storedObjects] == objects, "\(entry.name)")
        }
    }
}
