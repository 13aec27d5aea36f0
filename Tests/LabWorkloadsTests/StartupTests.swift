import Foundation
import LabWorkloads
import ObjectStack
import TestSupport
import Testing

/// Launches as real child processes on seeded stores: what they measure, and the watchdog.
@Suite("Startup launches")
struct StartupTests {
    static let folder: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("stacklab-startup-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    static func seeded(_ store: StoreKind, objects: Int = 20_000) throws -> URL {
        let url = folder.appendingPathComponent("seed-\(UUID().uuidString).\(store.name)")
        _ = try PodStoreSeeder(store: store, objects: objects, modelVersion: 1, url: url).run()
        return url
    }

    static func launch(
        _ seeded: URL, _ store: StoreKind, _ mode: LaunchChild.Mode, appVersion: Int = 1,
        deadline: Duration = .seconds(60), migration: StartupMigration = .lightweight
    ) throws -> LaunchReport {
        try StartupLauncher(executable: StackLabBinary.url).run(
            .init(
                store: store, seededStore: seeded, mode: mode, appModelVersion: appVersion, deadline: deadline,
                migration: migration),
            workDirectory: folder)
    }

    @Test(
        "a launch reports its milestones in order and fetches the first screen", arguments: StoreKind.fileStores,
        LaunchChild.Mode.allCases)
    func milestones(store: StoreKind, mode: LaunchChild.Mode) throws {
        let report = try Self.launch(try Self.seeded(store, objects: 2_000), store, mode)
        #expect(report.error == nil && !report.killedByWatchdog && !report.migrated)
        #expect(report.firstScreenRows == 50)
        let main = try #require(report.timeToMainMs)
        let frame = try #require(report.timeToFirstFrameMs)
        let ready = try #require(report.timeToStoreReadyMs)
        let screen = try #require(report.timeToFirstScreenMs)
        #expect(main > 0 && main <= frame && frame <= screen && ready <= screen)
        if mode == .sync { #expect(ready <= frame, "a sync launch draws its first frame after adding the store") }
        #expect(report.mainMaxStallMs != nil)
    }

    @Test(
        "the watchdog kills a synchronous migrating launch past its deadline; the asynchronous one draws at once",
        arguments: StoreKind.fileStores)
    func watchdog(store: StoreKind) throws {
        let seeded = try Self.seeded(store)
        let before = try Data(contentsOf: seeded)
        // The custom stage rewrites all 20,000 pods (a quarter of a second or more); a lightweight migration on a
        // flushed copy now draws its first frame about as soon as the deadline, so it no longer tests the kill.
        let killed = try Self.launch(
            seeded, store, .sync, appVersion: 2, deadline: .milliseconds(30), migration: .custom)
        #expect(killed.killedByWatchdog)
        #expect(killed.timeToFirstFrameMs == nil && killed.timeToFirstScreenMs == nil)

        let responsive = try Self.launch(seeded, store, .async, appVersion: 2, deadline: .seconds(60))
        #expect(!responsive.killedByWatchdog && responsive.migrated && responsive.migrationFraction == 1)
        let frame = try #require(responsive.timeToFirstFrameMs)
        let ready = try #require(responsive.timeToStoreReadyMs)
        #expect(frame < ready, "the two-phase launch draws before the migration ends")
        #expect(responsive.firstScreenRows == 50)
        #expect(try Data(contentsOf: seeded) == before, "launches run on copies: the seeded store is unchanged")
    }

    @Test("a startup scenario writes a row per launch with the watchdog's verdict")
    @MainActor
    func scenario() async throws {
        let file = Self.folder.appendingPathComponent("startup-\(UUID().uuidString).yaml")
        try """
        # A tiny startup sweep for the test.
        name: startup-test
        workload: startup
        model: builtin:pods
        repetitions: 1
        parameters:
          objects: 3000
          deadline_s: 0.03
        matrix:
          store: [sqlite]
          app_version: [1, 2]
          mode: [sync]
        """.write(to: file, atomically: true, encoding: .utf8)
        let scenario = try ScenarioFile.load(file)
        let out = Self.folder.appendingPathComponent("out-\(UUID().uuidString)")
        let runner = ScenarioRunner(
            options: .init(outDirectory: out), progress: ProgressReporter(isTerminal: false) { _ in })
        let results = try await runner.run(runner.prepared(scenario))
        #expect(results.count == 2 && results.allSatisfy { $0.error == nil })
        let csv = try String(contentsOf: runner.csvURL(for: scenario), encoding: .utf8)
        let table = try ResultTable(text: csv, source: "startup.csv")
        let killed = table.rows.map { table.value("killed_by_watchdog", in: $0) }
        #expect(
            killed == ["false", "true"] || killed == ["true", "true"],
            "the migrating sync launch misses a 30 ms deadline: \(killed)")
        #expect(table.rows.allSatisfy { table.value("deadline_ms", in: $0) == "30" })
    }

    @Test("the deadline crossing is the fitted line's size at the deadline; flat or single-size runs have none")
    func crossingFit() throws {
        let line = try #require(DeadlineCrossing(points: [(1_000, 150), (2_000, 250), (4_000, 450)], deadline: 1_050))
        #expect(abs(line.objects! - 10_000) < 1e-6 && line.rmseMilliseconds < 1e-9)
        let noisy = try #require(
            DeadlineCrossing(points: [(1_000, 100), (1_000, 140), (3_000, 300), (3_000, 340)], deadline: 520))
        #expect(abs(noisy.objects! - 5_000) < 1e-6 && abs(noisy.rmseMilliseconds - 20) < 1e-9)
        #expect(
            DeadlineCrossing(points: [(1_000, 30), (100_000, 29)], deadline: 20_000)?.objects == nil,
            "no growth, no crossing")
        #expect(DeadlineCrossing(points: [(1_000, 30), (1_000, 40)], deadline: 20_000) == nil, "one size fits no line")
    }

    @Test(
        "a custom staged migration back-fills every pod at launch; each cell gets its deadline crossing",
        arguments: StoreKind.fileStores)
    @MainActor
    func customMigrationScenario(store: StoreKind) async throws {
        let file = Self.folder.appendingPathComponent("startup-\(UUID().uuidString).yaml")
        try """
        # Custom and lightweight migrations at two sizes, for the test.
        name: startup-custom
        workload: startup
        model: builtin:pods
        repetitions: 1
        parameters:
          store: \(store.name)
          deadline_s: 60
        matrix:
          objects: [1000, 3000]
          migration: [lightweight, custom]
          mode: [sync]
        """.write(to: file, atomically: true, encoding: .utf8)
        let scenario = try ScenarioFile.load(file)
        let out = Self.folder.appendingPathComponent("out-\(UUID().uuidString)")
        let runner = ScenarioRunner(
            options: .init(outDirectory: out), progress: ProgressReporter(isTerminal: false) { _ in })
        let results = try await runner.run(runner.prepared(scenario))
        #expect(results.count == 4 && results.allSatisfy { $0.error == nil }, "\(results.compactMap(\.error))")
        let table = try ResultTable(
            text: try String(contentsOf: runner.csvURL(for: scenario), encoding: .utf8), source: "startup.csv")
        #expect(
            table.rows.allSatisfy {
                table.value("migrated", in: $0) == "true" && table.value("killed_by_watchdog", in: $0) == "false"
            })
        #expect(table.rows.allSatisfy { !(table.value("crossing_fit_rmse_ms", in: $0) ?? "").isEmpty })
        // Two points a line passes through exactly: no residual.
        #expect(table.rows.allSatisfy { Double(table.value("crossing_fit_rmse_ms", in: $0) ?? "") == 0 })
        let first = results.filter { $0.cell.parameters["migration"]?.description == "custom" }.compactMap {
            $0.metrics[.timeToFirstFrameMilliseconds]
        }
        let plain = results.filter { $0.cell.parameters["migration"]?.description == "lightweight" }.compactMap {
            $0.metrics[.timeToFirstFrameMilliseconds]
        }
        #expect(first.count == 2 && plain.count == 2)
    }

    @Test("the custom stage sets every pod's stars from its downloads", arguments: StoreKind.fileStores)
    func customStageBackFills(store: StoreKind) throws {
        let url = try Self.seeded(store, objects: 25_000)
        let container = PersistentContainer(name: "BackFill", managedObjectModel: try PodModel.make(version: 2))
        var description = StoreDescription(type: store.storeType, url: url)
        description.stagedMigrationManager = try StartupMigration.customStages(appVersion: 2)
        container.persistentStoreDescriptions = [description]
        let failure = LockedValue<(any Error)?>(nil)
        container.loadPersistentStores { _, error in failure.withLock { $0 = error } }
        #expect(failure.withLock { $0 } == nil)
        let context = container.newBackgroundContext()
        try context.performAndWait { () throws in
            let pods = try context.fetch(FetchRequest<ManagedObject>(entityName: "Pod"))
            #expect(pods.count == 25_000)
            let wrong = pods.filter {
                ($0.value(forKey: "stars") as? Int64) != ($0.value(forKey: "downloads") as? Int64).map { $0 / 1_000 }
            }
            #expect(wrong.isEmpty, "\(wrong.count) pods not back-filled")
            #expect(
                pods.contains { ($0.value(forKey: "stars") as? Int64 ?? 0) > 0 },
                "the seeded downloads give non-zero stars")
        }
    }
}
