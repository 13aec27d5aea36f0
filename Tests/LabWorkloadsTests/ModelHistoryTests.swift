import Foundation
import ObjectStack
import TestSupport
import Testing

@testable import LabWorkloads

/// The multi-version shared models through their whole history: seeded at the first version, migrated step by
/// step to the current one, with the steps Core Data's lightweight rules do not cover named with their reasons.
@Suite("Model version history")
struct ModelHistoryTests {
    /// The verdict of each step, in order, as Core Data's rules give it.
    static let expected: [(folder: String, bundle: String, verdicts: [ModelHistory.Verdict])] = [
        // Moody 2 -> 3 adds Continent.moods as a required to-many: existing continents have none, and an inferred
        // mapping cannot invent them (Core Data: "Validation error missing attribute values on mandatory destination
        // relationship"); objc.io migrates that step with a mapping model. The other steps are inferred.
        (
            "objcio-core-data-Migrations", "Moody.xcdatamodeld",
            [
                .lightweight,
                .notLightweight(reasons: [
                    "relationship Continent.moods is added as required: existing objects have none"
                ]),
                .lightweight, .lightweight, .lightweight,
            ]
        ),
        ("wikipedia-ios", "Wikipedia.xcdatamodeld", Array(repeating: .lightweight, count: 5)),
        ("BrowserServicesKit", "BookmarksModel.xcdatamodeld", Array(repeating: .lightweight, count: 5)),
        // SampleModel2 -> 3 turns the Car.maker string into Maker objects: CoreDataPlus does it with a custom mapping
        // model, but the change (an attribute removed, an entity and relationships added) is inferable, as its own
        // tests assert; only the data conversion needs the app's code.
        ("CoreDataPlus", "SampleModel.xcdatamodeld", [.lightweight, .lightweight]),
        // Model -> Model 2 makes optional attributes required and adds a required one, none with a default value:
        // Core Data's lightweight migration needs a default value for both.
        (
            "SwiftGen", "Model.xcdatamodeld",
            [
                .notLightweight(reasons: [
                    "attribute MainEntity.boolean becomes required without a default value",
                    "attribute MainEntity.string becomes required without a default value",
                    "attribute SecondaryEntity.name is added as required without a default value",
                    "attribute ChildEntity.boolean becomes required without a default value",
                    "attribute ChildEntity.string becomes required without a default value",
                ])
            ]
        ),
        ("LoopKit", "Model.xcdatamodeld", [.lightweight]),
    ]

    static var cases: [String] { expected.map(\.folder) }

    @Test(
        "every multi-version model goes through its whole history, each step with Core Data's verdict",
        arguments: cases, [StoreKind.sqlite, .lmdb])
    func history(folder: String, kind: StoreKind) throws {
        let entry = Self.expected.first { $0.folder == folder }!
        let versions = try ManagedObjectModel.versions(contentsOf: SharedModels.url(folder, entry.bundle))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("history-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let history = try ModelHistory.run(
            versions: versions, from: 0, to: versions.count - 1,
            spec: PopulationSpec(rootCount: 5), seed: 3, store: kind, directory: directory)
        #expect(history.versionNames == versions.map(\.name))
        #expect(history.steps.count == versions.count - 1)
        let verdicts = history.steps.map(\.verdict)
        if case .notLightweight(let reasons)? = entry.verdicts.first(where: { $0.name == "not lightweight" }),
            case .notLightweight(let found)? = verdicts.first(where: { $0.name == "not lightweight" })
        {
            #expect(found.sorted() == reasons.sorted())
        }
        #expect(verdicts.map(\.name) == entry.verdicts.map(\.name))
        for step in history.steps {
            #expect((step.verdict == .lightweight) == (step.duration != nil), "\(step.from) -> \(step.to)")
            #expect((step.reseeded != nil) == (step.verdict.name == "not lightweight" || step.verdict.name == "failed"))
        }
        #expect((history.launchDuration != nil) == entry.verdicts.allSatisfy { $0 == .lightweight })
        #expect(history.objects > 0)
    }

    @Test("stacklab model history prints each step with its verdict; the old spelling, model PATH --history, too")
    func command() throws {
        let moody = SharedModels.url("objcio-core-data-Migrations", "Moody.xcdatamodeld").path
        let (status, output) = try StackLabBinary.run(["model", "history", moody, "--objects", "5"])
        #expect(status == 0, "\(output)")
        #expect(output.contains("Moody -> Moody 2: lightweight"))
        #expect(output.contains("Moody 2 -> Moody 3: not lightweight"))
        #expect(output.contains("relationship Continent.moods is added as required"))
        #expect(output.contains("Moody 5 -> Moody 6: lightweight"))
        let old = try StackLabBinary.run(["model", moody, "--history", "--populate", "5"])
        #expect(old.status == 0, "\(old.output)")
        // Each step's versions and verdict, without its time.
        func verdicts(_ text: String) -> [Substring] {
            text.split(separator: "\n").filter { $0.contains(" -> ") }.compactMap { $0.split(separator: ",").first }
        }
        #expect(verdicts(old.output) == verdicts(output))
        let memory = try StackLabBinary.run(["model", "history", moody, "--store", "memory"])
        #expect(memory.status == 2)
        #expect(memory.output.contains("--store must be a file store"))
    }

    // MARK: - Mapping models

    /// objc.io's Moody bundle as its repository ships it, with its four mapping models beside it.
    static var corpusMoody: URL? {
        CoreDataStoreCorpus.shared?.mappingModels.first { $0.folder == "objcio+core-data" }?.bundles.first
    }

    @Test(
        "a step the bundle ships a mapping model for migrates through it; one naming a policy nobody registered fails naming it",
        .enabled(if: corpusMoody != nil, "no shared/coredata-stores"), arguments: [StoreKind.sqlite, .lmdb])
    func mappingModels(kind: StoreKind) throws {
        let bundle = try #require(Self.corpusMoody)
        let versions = try ManagedObjectModel.versions(contentsOf: bundle)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("history-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let mapped: [ModelHistory.Verdict] = [
            .lightweight, .mappingModel("Moody 2-Moody 3"), .mappingModel("Moody 3-Moody 4"),
            .mappingModel("Moody 4-Moody 5"), .mappingModel("Moody 5-Moody 6"),
        ]
        let history = try ModelHistory.run(
            versions: versions, from: 0, to: versions.count - 1, spec: PopulationSpec(rootCount: 5), seed: 3,
            store: kind, directory: directory,
            policies: CorpusMigrationPolicies.policies(forFolder: "objcio+core-data"))
        #expect(history.steps.map(\.verdict) == mapped)
        #expect(history.steps.allSatisfy { $0.duration != nil && $0.reseeded == nil })
        #expect(history.launchDuration != nil)
        #expect(history.text.contains("Moody 2 -> Moody 3: mapping model Moody 2-Moody 3"))
        // Without the app's policy, the last step names the class it needs and the trip cannot launch.
        let unregistered = try ModelHistory.run(
            versions: versions, from: 3, to: versions.count - 1, spec: PopulationSpec(rootCount: 5), seed: 3,
            store: kind, directory: directory.appendingPathComponent("unregistered"))
        guard case .failed(let message)? = unregistered.steps.last?.verdict else {
            Issue.record("the step without its policy did not fail: \(unregistered.steps.map(\.verdict))")
            return
        }
        #expect(message.contains("Country5ToCountry6Policy") && message.contains("CountryToCountry"), "\(message)")
        #expect(unregistered.launchDuration == nil)
    }

    @Test(
        "stacklab model history says which steps go through the bundle's mapping models",
        .enabled(if: corpusMoody != nil, "no shared/coredata-stores"))
    func commandWithMappingModels() throws {
        let (status, output) = try StackLabBinary.run([
            "model", "history", try #require(Self.corpusMoody).path, "--objects", "3", "--from", "Moody 3",
            "--version", "Moody 5",
        ])
        #expect(status == 0, "\(output)")
        #expect(output.contains("Moody 3 -> Moody 4: mapping model Moody 3-Moody 4"), "\(output)")
        #expect(output.contains("Moody 4 -> Moody 5: mapping model Moody 4-Moody 5"), "\(output)")
        #expect(output.contains("step by step, through the mapping models"), "\(output)")
    }
}
