import Foundation
import ObjectStack
import TestSupport
import Testing

@testable import LabWorkloads

/// merge-cost on real model files: inserts that fill every required attribute and relationship, updates, and
/// deletes the delete rules allow, merged into a main context whose fetched results controller runs the first
/// screen's fetch; on the three stores, every merged change accounted for.
@Suite("merge-cost on model files")
struct MergeCostModelFileTests {
    /// objc.io Moody as of chapter 1.2: required relationships both ways (Mood.country, Country.moods,
    /// Continent.countries) and deny rules on the to-manys.
    static let moody = SharedModels.url("objcio-core-data-Chapter-1.2", "Moody.xcdatamodeld").path
    /// DuckDuckGo's bookmarks: one entity whose folders cascade to their children.
    static let bookmarks = SharedModels.url("BrowserServicesKit", "BookmarksModel.xcdatamodeld").path

    /// Runs merge-cost on `model` in quick mode with `changes` changes per save, on every store.
    @MainActor
    func run(_ model: String, extra: String = "", strategies: String = "[shared-coordinator]") async throws
        -> [RunResult]
    {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("merge-model-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = """
            name: merge-model
            workload: merge-cost
            model: \(model)
            population:
              count: 20
              children: 1-3
            \(extra)
            parameters:
              changes: 30
              merges: 2
            matrix:
              store: [sqlite, lmdb, memory]
              strategy: \(strategies)
            """
        let scenario = try ScenarioFile.parse(text, file: folder.appendingPathComponent("merge-model.yaml"))
        try scenario.validate(filters: [:])
        let runner = ScenarioRunner(
            options: .init(outDirectory: folder, quick: true), progress: ProgressReporter(isTerminal: false) { _ in })
        return try await runner.run(runner.prepared(scenario))
    }

    /// The planned objects of `entity` and its sub-entities.
    static func planned(_ model: String, _ entity: String) throws -> Int {
        let selection = try ModelFileSelection(path: model, relativeTo: nil)
        let plan = try PopulationPlan(
            model: selection.model, spec: PopulationSpec(rootCount: 20, children: 1...3), seed: 1)
        let family = Set(selection.model.entitiesByName[entity]!.selfAndDescendants.map(\.name))
        return plan.entities.filter { family.contains($0.entity.name) }.reduce(0) { $0 + $1.count }
    }

    /// What every run must show: no error, every change counted, the store at seeded + inserted - deleted.
    func expectAccounted(_ results: [RunResult], planned: Int, stores: Int = 3) {
        #expect(results.count == stores)
        for result in results {
            let cell = result.cell.parameters.map { "\($0)=\($1)" }.sorted().joined(separator: " ")
            #expect(result.error == nil, "\(cell): \(result.error ?? "")")
            let inserted = result.metrics[.inserted] ?? -1
            let deleted = result.metrics[.deleted] ?? -1
            #expect(inserted == 20, "\(cell)")  // 10 inserts a save, 2 saves
            #expect(result.metrics[.storedObjects] == Double(planned) + inserted - deleted, "\(cell)")
            #expect((result.metrics[.objects] ?? 0) >= inserted + deleted, "\(cell)")
            #expect(result.metrics[.merges] == 2, "\(cell)")
        }
    }

    @Test("Moody 1.2, Mood screen: moods inserted with a country, deletes that leave no country without moods")
    @MainActor
    func moodyMoods() async throws {
        let results = try await run(
            Self.moody, extra: "first_screen: {entity: Mood, sort: [-date]}",
            strategies: "[shared-coordinator, separate-stacks, nested-contexts]")
        expectAccounted(
            results.filter { $0.cell.parameters["strategy"]?.description == "shared-coordinator" },
            planned: try Self.planned(Self.moody, "Mood"))
        expectAccounted(
            results.filter { $0.cell.parameters["strategy"]?.description == "separate-stacks" },
            planned: try Self.planned(Self.moody, "Mood"))
        expectAccounted(
            results.filter { $0.cell.parameters["strategy"]?.description == "nested-contexts" },
            planned: try Self.planned(Self.moody, "Mood"))
        for result in results {
            #expect((result.metrics[.deleted] ?? 0) > 0)
            // Some moods are their country's last, which Country.moods (required) keeps.
            #expect((result.metrics[.deletesRefused] ?? 0) > 0)
        }
    }

    @Test(
        "Moody 1.2, inferred Continent screen: each new continent gets a new country with a new mood; deny refuses deletes"
    )
    @MainActor
    func moodyContinents() async throws {
        let results = try await run(Self.moody)
        expectAccounted(results, planned: try Self.planned(Self.moody, "Continent"))
        for result in results {
            // Every continent holds countries and Continent.countries denies: no delete passes, each is counted.
            #expect(result.metrics[.deleted] == 0)
            #expect((result.metrics[.deletesRefused] ?? 0) > 0)
        }
    }

    @Test("BrowserServicesKit bookmarks: deletes cascade to children, all counted")
    @MainActor
    func bookmarks() async throws {
        let results = try await run(Self.bookmarks)
        expectAccounted(results, planned: try Self.planned(Self.bookmarks, "BookmarkEntity"))
        for result in results { #expect((result.metrics[.deleted] ?? 0) >= 10) }
    }

    @Test("the inserter fills required relationships and keeps uniqueness; the delete check names the rule")
    func inserterAndDeleteCheck() throws {
        let selection = try ModelFileSelection(path: Self.moody, relativeTo: nil)
        let plan = try PopulationPlan(
            model: selection.model, spec: PopulationSpec(rootCount: 3, children: 1...2), seed: 1)
        let coordinator = try LabStack.openCoordinator(store: .memory, at: nil, model: plan.model)
        _ = try ModelPopulator.write(plan, into: coordinator)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        let inserter = try ModelObjectInserter(plan: plan, entity: "Continent", seed: 5)
        try context.performAndWait {
            #expect(try inserter.insert(4, into: context) == 4)
            let continents = context.insertedObjects.filter { $0.entity.name == "Continent" }
            #expect(continents.count == 4)
            for continent in continents {
                let countries = continent.relatedObjects(continent.entity.relationshipsByName["countries"]!)
                #expect(countries.count >= 1 && countries.allSatisfy(\.isInserted))
                let reason = DeleteRuleCheck.refusal(deleting: continent)
                #expect(reason?.contains("Continent.countries has the deny rule") == true)
            }
            try context.save()  // validation: every required relationship and value is there
            // A country's only mood cannot go: Country.moods is required.
            let country = try #require(
                try context.fetch(FetchRequest<ManagedObject>(entityName: "Country")).first {
                    $0.relatedObjects($0.entity.relationshipsByName["moods"]!).count == 1
                })
            let mood = try #require(country.relatedObjects(country.entity.relationshipsByName["moods"]!).first)
            #expect(
                DeleteRuleCheck.refusal(deleting: mood)
                    == "Mood.country nullifies Country.moods, leaving 0 object(s), fewer than its minimum of 1")
        }
    }
}
