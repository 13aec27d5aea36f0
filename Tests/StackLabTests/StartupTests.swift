import Foundation
import StackLab
import Testing

/// Launches as real child processes on seeded stores: what they measure, and the watchdog.
@Suite("Startup launches")
struct StartupTests {
    static let folder: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("stacklab-startup-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    static func seeded(_ store: PodStoreSeeder.Store, objects: Int = 20_000) throws -> URL {
        let url = folder.appendingPathComponent("seed-\(UUID().uuidString).\(store.rawValue)")
        _ = try PodStoreSeeder(store: store, objects: objects, modelVersion: 1, url: url).run()
        return url
    }

    static func launch(_ seeded: URL, _ store: PodStoreSeeder.Store, _ mode: LaunchChild.Mode, appVersion: Int = 1,
                       deadline: Duration = .seconds(60)) throws -> LaunchReport {
        try StartupLauncher(executable: StackLabBinary.url).run(
            .init(store: store, seededStore: seeded, mode: mode, appModelVersion: appVersion, deadline: deadline),
            workDirectory: folder)
    }

    @Test("a launch reports its milestones in order and fetches the first screen", arguments: PodStoreSeeder.Store.allCases, LaunchChild.Mode.allCases)
    func milestones(store: PodStoreSeeder.Store, mode: LaunchChild.Mode) throws {
        let report = try Self.launch(try Self.seeded(store, objects: 2_000), store, mode)
        #expect(report.error == nil && !report.killedByWatchdog && !report.migrated)
        #expect(report.firstScreenRows == 50)
        let main = try #require(report.timeToMainMs), frame = try #require(report.timeToFirstFrameMs)
        let ready = try #require(report.timeToStoreReadyMs), screen = try #require(report.timeToFirstScreenMs)
        #expect(main > 0 && main <= frame && frame <= screen && ready <= screen)
        if mode == .sync { #expect(ready <= frame, "a sync launch draws its first frame after adding the store") }
        #expect(report.mainMaxStallMs != nil)
    }

    @Test("the watchdog kills a synchronous migrating launch past its deadline; the asynchronous one draws at once",
          arguments: PodStoreSeeder.Store.allCases)
    func watchdog(store: PodStoreSeeder.Store) throws {
        let seeded = try Self.seeded(store)
        let before = try Data(contentsOf: seeded)
        let killed = try Self.launch(seeded, store, .sync, appVersion: 2, deadline: .milliseconds(30))
        #expect(killed.killedByWatchdog)
        #expect(killed.timeToFirstFrameMs == nil && killed.timeToFirstScreenMs == nil)

        let responsive = try Self.launch(seeded, store, .async, appVersion: 2, deadline: .seconds(60))
        #expect(!responsive.killedByWatchdog && responsive.migrated && responsive.migrationFraction == 1)
        let frame = try #require(responsive.timeToFirstFrameMs), ready = try #require(responsive.timeToStoreReadyMs)
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
        let runner = ScenarioRunner(options: .init(outDirectory: out), progress: ProgressReporter(isTerminal: false) { _ in })
        let results = try await runner.run(runner.prepared(scenario))
        #expect(results.count == 2 && results.allSatisfy { $0.error == nil })
        let csv = try String(contentsOf: runner.csvURL(for: scenario), encoding: .utf8)
        let table = try ResultTable(text: csv, source: "startup.csv")
        let killed = table.rows.map { table.value("killed_by_watchdog", in: $0) }
        #expect(killed == ["false", "true"] || killed == ["true", "true"],
                "the migrating sync launch misses a 30 ms deadline: \(killed)")
        #expect(table.rows.allSatisfy { table.value("deadline_ms", in: $0) == "30" })
    }
}
