import Foundation
import ObjectStack
import TestSupport
import Testing

@testable import LabWorkloads

/// The stack workloads on a model file: the store seeded from the model's population, the first screen fetched
/// (as `first_screen:` names it or inferred), objects of its entity updated with values that keep the model's
/// constraints.
@Suite("Workloads on model files")
struct ModelFileWorkloadTests {
    static let moody = SharedModels.url("objcio-core-data-Migrations", "Moody.xcdatamodeld").path

    /// Runs a scenario on Moody (current version, `count` countries) in quick mode.
    @MainActor
    func run(
        _ workload: String, extra: String = "", stores: String = "[sqlite, lmdb, memory]",
        parameters: String = "strategy: shared-coordinator"
    ) async throws
        -> [RunResult]
    {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("model-workload-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = """
            name: mine
            workload: \(workload)
            model: \(Self.moody)
            population:
              count: 6
              children: 1-3
            \(extra)
            parameters:
              \(parameters)
            matrix:
              store: \(stores)
            """
        let scenario = try ScenarioFile.parse(text, file: folder.appendingPathComponent("mine.yaml"))
        try scenario.validate(filters: [:])
        let runner = ScenarioRunner(
            options: .init(outDirectory: folder, quick: true), progress: ProgressReporter(isTerminal: false) { _ in })
        return try await runner.run(runner.prepared(scenario))
    }

    static func plan() throws -> PopulationPlan {
        let selection = try ModelFileSelection(path: moody, relativeTo: nil)
        return try PopulationPlan(model: selection.model, spec: PopulationSpec(rootCount: 6, children: 1...3), seed: 1)
    }

    @Test("the first screen is inferred: the root entity with the most objects, by its first indexed attribute")
    func inferredScreen() throws {
        let plan = try Self.plan()
        let screen = try FirstScreen(nil, plan: plan)
        let roots = plan.entities.filter { $0.reason.hasPrefix("root") }
        #expect(screen.entity.name == roots.max { $0.count < $1.count }?.entity.name)
        let indexed = screen.entity.attributes.first { $0.isIndexed }
        #expect(screen.sort.first?.key == (indexed ?? screen.entity.attributes[0]).name)
        #expect(screen.limit == 50)
    }

    @Test("a named first screen is checked against the model: unknown entity, unsortable key, bad predicate")
    func namedScreen() throws {
        let plan = try Self.plan()
        let screen = try FirstScreen(
            FirstScreenSpec(entity: "Mood", sort: ["-date"], predicate: "rating > 1", limit: 7), plan: plan)
        #expect(screen.request().entityName == "Mood")
        #expect(screen.sort == [SortKey("date", ascending: false)])
        #expect(screen.limit == 7 && screen.predicate != nil)
        let unknown = #expect(throws: LabError.self) { try FirstScreen(FirstScreenSpec(entity: "Planet"), plan: plan) }
        #expect(unknown?.message.hasPrefix("first_screen entity 'Planet' is not in the model") == true)
        let key = #expect(throws: LabError.self) {
            try FirstScreen(FirstScreenSpec(entity: "Mood", sort: ["colors"]), plan: plan)
        }
        #expect(key?.message.hasPrefix("first_screen sort key 'colors' is not a sortable attribute of Mood") == true)
        let predicate = #expect(throws: LabError.self) {
            try FirstScreen(FirstScreenSpec(entity: "Mood", predicate: "rating >"), plan: plan)
        }
        #expect(predicate?.message.hasPrefix("first_screen predicate 'rating >' does not parse") == true)
    }

    @Test("read-write-mix on a model file: seeded from its population, first screen fetched, inserts and updates saved")
    @MainActor
    func readWriteMix() async throws {
        let results = try await run("read-write-mix", extra: "first_screen: {entity: Mood, sort: [-date]}")
        let moods = try Self.plan().entities.first { $0.entity.name == "Mood" }!.count
        #expect(results.count == 3)
        for result in results {
            #expect(result.error == nil)
            let inserted = try #require(result.metrics[.inserted])
            #expect(inserted > 0)
            #expect(result.metrics[.storedObjects] == Double(moods) + inserted)  // half the writes are new moods
            #expect((result.metrics[.objects] ?? 0) > inserted)  // and half updates
            #expect((result.metrics[.fetches] ?? 0) > 0)
        }
    }

    @Test(
        "read-write-mix writes on a first screen with nothing to update: new objects, every required relationship set",
        arguments: [
            SharedModels.url("Core-Data-Editor", "simple_no_inverse.xcdatamodeld").path,
            SharedModels.url("SwiftGen", "Model.xcdatamodeld").path,
        ])
    @MainActor
    func readWriteMixInsertsOnly(_ model: String) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("model-insert-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = """
            name: inserts
            workload: read-write-mix
            model: \(model)
            population: {count: 5}
            parameters: {strategy: shared-coordinator, batch_size: 10}
            matrix:
              store: [sqlite, lmdb, memory]
            """
        let scenario = try ScenarioFile.parse(text, file: folder.appendingPathComponent("inserts.yaml"))
        let selection = try ModelFileSelection(path: model, relativeTo: nil)
        let plan = try PopulationPlan(model: selection.model, spec: PopulationSpec(rootCount: 5), seed: 1)
        let screen = try FirstScreen(nil, plan: plan)
        let listed = Set(screen.entity.selfAndDescendants.map(\.name))
        let planned = plan.entities.filter { listed.contains($0.entity.name) }.reduce(0) { $0 + $1.count }
        // The premise: no attribute of the first screen's entity can be updated.
        #expect(try !ModelObjectUpdater(try #require(try ModelFileRun(run(scenario, model))), seed: 2).canUpdate)
        let runner = ScenarioRunner(
            options: .init(outDirectory: folder, quick: true), progress: ProgressReporter(isTerminal: false) { _ in })
        let results = try await runner.run(runner.prepared(scenario))
        #expect(results.count == 3)
        for result in results {
            #expect(result.error == nil, "\(result.error ?? "")")
            let inserted = try #require(result.metrics[.inserted])
            #expect(inserted > 0 && result.metrics[.objects] == inserted)  // every write a new object
            #expect(result.metrics[.storedObjects] == Double(planned) + inserted)
        }
    }

    /// A run of `scenario`'s model file with the data seed 1, for building its `ModelFileRun`.
    func run(_ scenario: Scenario, _ model: String) -> WorkloadRun {
        WorkloadRun(
            parameters: ["seed": .integer(1)], model: .file(model), modelFile: scenario.loadedModelFile,
            directory: URL(fileURLWithPath: "/tmp"), sharedDirectory: URL(fileURLWithPath: "/tmp"),
            workDirectory: URL(fileURLWithPath: "/tmp"))
    }

    @Test("save-chain on a model file updates the first screen's objects through the chain, every store")
    @MainActor
    func saveChain() async throws {
        let results = try await run("save-chain")
        let plan = try Self.plan()
        let screen = try FirstScreen(nil, plan: plan)
        let listed = try #require(plan.entities.first { $0.entity === screen.entity }).count
        for result in results {
            #expect(result.error == nil)
            #expect(result.metrics[.storedObjects] == Double(listed))
            #expect(result.metrics[.objects] == Double(min(200, listed) * 3))  // quick: 3 saves of ≤ 200
        }
    }

    @Test("the updater writes generated values that keep the constraints, never a uniquely constrained attribute")
    func updater() throws {
        let plan = try Self.plan()
        let run = try #require(
            try ModelFileRun(
                WorkloadRun(
                    parameters: ["seed": .integer(1)], model: .file(Self.moody),
                    modelFile: ScenarioModelFile(
                        selection: ModelFileSelection(path: Self.moody, relativeTo: nil),
                        population: plan.spec),
                    firstScreen: FirstScreenSpec(entity: "Mood"),
                    directory: URL(fileURLWithPath: "/tmp"), sharedDirectory: URL(fileURLWithPath: "/tmp"),
                    workDirectory: URL(fileURLWithPath: "/tmp"))))
        let coordinator = try LabStack.openCoordinator(store: .memory, at: nil, model: plan.model)
        _ = try ModelPopulator.write(run.plan, into: coordinator)
        let updater = try ModelObjectUpdater(run, seed: 99)
        #expect(updater.canUpdate && updater.entityName == "Mood")
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            var updated = 0
            for round in 0..<6 { updated += try updater.update(count: 5, offset: round * 5, round: round, in: context) }
            #expect(updated == 6 * min(5, updater.objects))  // pages wrap past the last object to the first
            #expect(context.hasChanges)
            try context.save()  // validation (ranges, required values) and uniqueness checked here
        }
    }

    @Test("startup on a model file: seeded at from_version, migrated through each later version, first screen read")
    @MainActor
    func startupHistory() async throws {
        // Moody 3 -> 6 are lightweight steps; Moody 2 -> 3 adds a required relationship, which is not.
        let results = try await run(
            "startup", stores: "[sqlite, lmdb]\n  from_version: [0, 3, 1]", parameters: "mode: async")
        #expect(results.count == 6)
        for result in results {
            let from = result.cell.parameters["from_version"]?.integerValue
            if from == 1 {
                // A list: the step, then each reason on a line of its own.
                #expect(
                    result.error?.hasPrefix(
                        "a launch from Moody to Moody 6 needs the app's own migration code for 1 step:\n"
                            + "  - Moody 2 -> Moody 3 is not lightweight:\n"
                            + "      - relationship Continent.moods is added as required") == true,
                    "\(result.error ?? "")")
                // The CSV's error cell is one line.
                #expect(
                    ScenarioRunner.oneLine(result.error ?? "").hasPrefix(
                        "a launch from Moody to Moody 6 needs the app's own migration code for 1 step: - Moody 2 -> "
                            + "Moody 3 is not lightweight: - relationship Continent.moods is added as required"))
                continue
            }
            #expect(result.error == nil)
            #expect(result.metrics[.migrated] == (from == 3 ? 1 : 0))
            let ready = try #require(result.metrics[.timeToStoreReadyMilliseconds])
            #expect(try #require(result.metrics[.timeToFirstScreenMilliseconds]) >= ready)
            // Each step's time in a column of its own; together they are the steps' wall time.
            let steps = from == 3 ? ["migration_3_to_4_ms", "migration_4_to_5_ms", "migration_5_to_6_ms"] : []
            let stepValues = result.metrics.filter { $0.key.group == Metric.migrationStepGroup }
            #expect(stepValues.keys.map(\.name).sorted() == steps)
            if from == 3 {
                #expect(stepValues.values.allSatisfy { $0 > 0 })
                let total = stepValues.values.reduce(0, +)
                #expect(abs(total - (result.metrics[.wallMilliseconds] ?? 0)) < 0.01)
            }
        }
    }

    @Test("startup on a model file has a CSV column per migration step, from the earliest from_version on")
    func startupStepColumns() throws {
        let scenario = try ScenarioFile.parse(
            """
            name: steps
            workload: startup
            model: \(Self.moody)
            matrix:
              store: [sqlite]
              from_version: [0, 3, 2]
            """, file: URL(fileURLWithPath: "/tmp/steps.yaml"))
        let columns = ResultCSV.columns(for: scenario)
        let steps = ["migration_2_to_3_ms", "migration_3_to_4_ms", "migration_4_to_5_ms", "migration_5_to_6_ms"]
        #expect(Array(columns.suffix(5)) == steps + ["error"])
        let noHistory = try ScenarioFile.parse(
            "name: steps\nworkload: startup\nmodel: \(Self.moody)\nparameters: {store: sqlite}\n",
            file: URL(fileURLWithPath: "/tmp/steps.yaml"))
        #expect(!ResultCSV.columns(for: noHistory).contains { $0.hasPrefix("migration_") })
    }

    @Test("startup refuses a from_version after the scenario's version")
    @MainActor
    func startupFutureVersion() async throws {
        let results = try await run(
            "startup", extra: "version: Moody 4", stores: "[sqlite]\n  from_version: [5]", parameters: "mode: async")
        #expect(
            results.first?.error?.contains(
                "from_version 5 is after the scenario's version Moody 4 (4 of 6); expected 1…4, or 0 for no migration")
                == true)
    }

    @Test(
        "import on a model file: every entity's pages from the service, found or created, every object counted")
    @MainActor
    func importPages() async throws {
        let plan = try Self.plan()
        let countries = try #require(plan.entities.first { $0.entity.name == "Country" }).count
        let results = try await run(
            "import", extra: "first_screen: {entity: Country}",
            stores: "[sqlite, lmdb, memory]\n  reimport: [false, true]"
        )
        #expect(results.count == 6)
        for result in results {
            guard result.cell.parameters["reimport"] == .boolean(false) else {
                // A second importer finds the countries by their key but creates the continents (no key) again,
                // leaving the first ones without countries, which the model does not allow: the save says so.
                #expect(
                    result.error?.contains("Continent.countries holds 0 object(s), fewer than its minimum of 1") == true
                )
                continue
            }
            #expect(result.error == nil)
            #expect(countries > 0)
            #expect(result.metrics[.storedObjects] == Double(plan.objectCount))
            #expect(result.metrics[.objects] == Double(plan.objectCount))
            // The phase columns are filled as for the pods, and cover the wall time.
            let wall = try #require(result.metrics[.wallMilliseconds])
            let phases = try ScenarioRunnerTests.phaseColumns.map { try #require(result.metrics[$0], "\($0.name)") }
            for metric in [
                Metric.serviceWaitMilliseconds, .decodeMilliseconds, .findOrCreateMilliseconds, .saveMilliseconds,
            ] {
                #expect((result.metrics[metric] ?? 0) > 0, "\(metric.name)")
            }
            #expect(abs(wall - phases.reduce(0, +)) <= 0.05 * wall, "wall \(wall) ms, phases \(phases)")
        }
    }
}
