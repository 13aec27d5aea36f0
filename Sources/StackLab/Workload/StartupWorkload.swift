import Foundation

/// The startup workload: each run is one app launch in a fresh child process (`StartupLauncher`) on a copy
/// of a store seeded once per store kind, size and model version (`SeededStores`), sync or async, migrating
/// when the app's model is newer than the store's, under the launch watchdog.
enum StartupWorkload {
    /// Makes one launch of the cell and returns its metrics; a killed launch is a result, not an error.
    static func run(_ parameters: [String: ScenarioValue], seeds: SeededStores, workDirectory: URL) async throws -> [Metric: Double] {
        func integer(_ name: String) -> Int { parameters[name]?.integerValue ?? 0 }
        guard let store = parameters["store"].flatMap({ PodStoreSeeder.Store(rawValue: $0.description) }),
            let mode = parameters["mode"].flatMap({ LaunchChild.Mode(rawValue: $0.description) })
        else { throw LabError(.invalidScenario, "a startup cell names no file store (sqlite, lmdb) or no mode") }
        guard let migration = StartupMigration(rawValue: parameters["migration"]?.description ?? "none") else {
            throw LabError(.invalidScenario, "migration must be one of \(StartupMigration.allCases.map(\.rawValue))")
        }
        let storeVersion = integer("store_version")
        // The migration axis names the app's version; without it, app_version does (older scenario files).
        let appVersion = migration == .none ? integer("app_version") : migration.appVersion(storeVersion: storeVersion)
        guard PodModel.versions.contains(storeVersion), PodModel.versions.contains(appVersion), appVersion >= storeVersion else {
            throw LabError(.invalidScenario,
                "store_version \(storeVersion) and app_version \(appVersion) must be pod model versions "
                + "\(PodModel.versions.lowerBound)…\(PodModel.versions.upperBound), the app's no older than the store's")
        }
        let deadlineSeconds = parameters["deadline_s"]?.numberValue ?? 20
        let seeded = try await seeds.store(store, objects: integer("objects"), version: storeVersion, seed: UInt64(integer("seed")))
        let launch = StartupLauncher.Launch(
            store: store, seededStore: seeded, mode: mode, appModelVersion: appVersion,
            deadline: .milliseconds(Int64(deadlineSeconds * 1_000)), migration: migration == .custom ? .custom : .lightweight)
        let report = try await Task.detached { try StartupLauncher().run(launch, workDirectory: workDirectory) }.value
        if let error = report.error { throw LabError(.workloadFailed, error) }
        var metrics: [Metric: Double] = [
            .killedByWatchdog: report.killedByWatchdog ? 1 : 0,
            .migrated: report.migrated ? 1 : 0,
            .deadlineMilliseconds: deadlineSeconds * 1_000,
            .objects: Double(integer("objects")),
        ]
        metrics[.timeToMainMilliseconds] = report.timeToMainMs
        metrics[.timeToFirstFrameMilliseconds] = report.timeToFirstFrameMs
        metrics[.timeToStoreReadyMilliseconds] = report.timeToStoreReadyMs
        metrics[.timeToFirstScreenMilliseconds] = report.timeToFirstScreenMs
        metrics[.mainMaxStallMilliseconds] = report.mainMaxStallMs
        metrics[.wallMilliseconds] = report.timeToFirstScreenMs
        // The launch's own CPU time, not the runner's (which only waited for it).
        metrics[.cpuMilliseconds] = report.cpuToFirstScreenMs
        return metrics
    }
}

/// Stores seeded for startup runs, made once per store kind, size, model version and seed and reused by every
/// launch of a scenario run (each launch copies its store), removed with the runner's work folder.
actor SeededStores {
    private let directory: URL
    private var made: [String: URL] = [:]

    init(directory: URL) {
        self.directory = directory
    }

    /// The seeded store for these settings, seeding it on first use.
    func store(_ store: PodStoreSeeder.Store, objects: Int, version: Int, seed: UInt64) async throws -> URL {
        let key = "\(store.rawValue)-\(objects)-v\(version)-s\(seed)"
        if let url = made[key] { return url }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent("\(key).\(store.rawValue)")
        let seeder = PodStoreSeeder(
            store: store, objects: objects, modelVersion: version, url: url, seed: seed, replacesExisting: true)
        _ = try await Task.detached { try seeder.run() }.value
        made[key] = url
        return url
    }

    /// Removes every seeded store.
    func removeAll() {
        try? FileManager.default.removeItem(at: directory)
        made = [:]
    }
}
