import Foundation
import LabCore

/// The startup workload: each run is one app launch in a fresh child process (`StartupLauncher`) on a copy
/// of a store seeded once per store kind, size and model version (`SeededStores`), sync or async, migrating
/// when the app's model is newer than the store's, under the launch watchdog.
///
/// On a model file the launch runs in this process (`ModelFileLaunch`): the store seeded with the scenario's
/// population at `from_version`, opened at the scenario's version through every version in between, and the
/// first screen fetched; `objects`, `mode`, the pod versions and `migration` are not read. Each migration step's
/// time has a column of its own (`metrics(for:)`).
///
/// On a scenario's store file (`store_file:`) each launch is again a child process under the watchdog, on a copy of
/// the file (never the file itself), sync or async: the app is the scenario's version of the bundle, and
/// `migration` says how the store reaches it (`none`: it is at it; `lightweight`: one inferred migration; `history`:
/// the bundle's versions a step at a time, through the project's mapping models); `objects` is the store's rows.
struct StartupWorkload: Workload {
    let name = "startup"
    let acceptsModelFiles = true
    let readsStoreFiles = true
    /// A launch opens a file: the in-memory store has nothing to launch on.
    let stores = StoreKind.fileStores
    /// A launch's milestones, its longest stall, the watchdog's verdict and the deadline crossing. (A launch has
    /// no concurrency strategy to choose: it opens one store, in one of two modes.)
    let metrics: [Metric] = [
        .objects, .mainMaxStallMilliseconds, .timeToMainMilliseconds, .timeToFirstFrameMilliseconds,
        .timeToStoreReadyMilliseconds, .timeToFirstScreenMilliseconds, .killedByWatchdog, .migrated,
        .deadlineMilliseconds, .deadlineCrossingObjects, .crossingFitErrorMilliseconds,
    ]
    let headlineMetrics: [Metric] = [
        .timeToFirstFrameMilliseconds, .timeToStoreReadyMilliseconds, .timeToFirstScreenMilliseconds,
        .mainMaxStallMilliseconds, .killedByWatchdog, .migrated, .deadlineCrossingObjects,
        .crossingFitErrorMilliseconds,
    ]
    /// Time to first frame (what the watchdog judges), to first screen, and the longest stall against the store
    /// size, log–log, a line per mode and a chart per store and migration; the deadline drawn, killed launches
    /// marked on it.
    let charts: [ChartSpec] = [
        Metric.timeToFirstFrameMilliseconds, .timeToFirstScreenMilliseconds, .mainMaxStallMilliseconds,
    ].map { metric in
        let timed = metric != .mainMaxStallMilliseconds
        return .lines(
            .metric(metric.name), against: .column("objects"), series: ["mode"],
            panels: ["store", "migration", "strategy"], xLog: true, yLog: true, xLabel: "objects in the store",
            rule: timed ? Metric.deadlineMilliseconds.name : nil, killed: timed ? Metric.killedByWatchdog.name : nil,
            colors: ["sync": "#d62728", "async": "#1f77b4"])
    }
    /// Launches are child processes: this process's CPU and memory are not theirs.
    let measuresProcessUsage = false

    /// Creates the workload.
    init() {}

    var parameters: [ParameterSpec] {
        [
            ParameterSpec("store", .choice(stores.map(\.name)), default: nil, help: "the store file's engine"),
            ParameterSpec(
                "mode", .choice(LaunchChild.Mode.allCases.map(\.rawValue)), default: .text("async"),
                help: "sync: the store is added on the main thread in the launch handler; async: on a background queue"),
            ParameterSpec(
                "objects", .integer(minimum: 1), default: .integer(10_000), quick: .integer(2_000),
                help: "pods in the seeded store"),
            ParameterSpec(
                "store_version", .integer(minimum: 1), default: .integer(1),
                help: "pod model version the store is seeded with"),
            ParameterSpec(
                "app_version", .integer(minimum: 1), default: .integer(1),
                help: "pod model version of the app; above store_version the launch migrates the store"),
            ParameterSpec(
                "migration", .choice(StartupMigration.allCases.map(\.rawValue)), default: .text("none"),
                help:
                    "none; lightweight: the app adds an attribute (an inferred migration); custom: a staged migration "
                    + "whose custom stage back-fills it on every pod (app code touching every object); history (on a "
                    + "store_file): the bundle's versions a step at a time to the scenario's, with its mapping models"),
            ParameterSpec(
                "deadline_s", .number(above: 0), default: .integer(20),
                help: "the watchdog kills a launch whose first frame has not come by then"),
            ParameterSpec("seed", .integer(minimum: 0), default: .integer(1), help: "seed of the seeded pods"),
            ParameterSpec(
                "from_version", .integer(minimum: 0), default: .integer(0),
                help:
                    "on a model file: the version the store is seeded at (1: the file's first), migrated to the "
                    + "scenario's version at launch; 0: seeded at the scenario's version"),
        ]
    }

    /// Its metrics, and on a model file with `from_version` a column per migration step from the earliest version a cell starts
    /// at to the scenario's version, `migration_K_to_L_ms` (1 = the file's first version), each step's time; a
    /// launch from a later version leaves the earlier steps empty.
    func metrics(for scenario: Scenario) -> [Metric] {
        guard let file = scenario.loadedModelFile as? ScenarioModelFile else { return metrics }
        let values =
            scenario.matrix.first { $0.name == "from_version" }?.values
            ?? [scenario.parameters["from_version"]].compactMap { $0 }
        let to = file.selection.versionIndex + 1
        guard let first = values.compactMap(\.integerValue).filter({ $0 > 0 }).min(), first < to else { return metrics }
        return metrics + (first..<to).map { Metric.migrationStep(from: $0, to: $0 + 1) }
    }

    /// Each cell's deadline crossing: the store size at which a launch would miss its deadline.
    func finish(_ results: inout [RunResult]) {
        DeadlineCrossing.add(to: &results)
    }

    /// Makes one launch of the cell and returns its metrics; a killed launch is a result, not an error.
    @MainActor
    func run(_ run: WorkloadRun) async throws -> [Metric: Double] {
        if let modelFile = try ModelFileRun(run) {
            if let storeFile = modelFile.file.storeFile { return try await launch(on: storeFile, modelFile, run) }
            guard let store = run.store, store.isFile else {
                throw LabError(.invalidScenario, "a startup cell names no file store (sqlite, lmdb)")
            }
            let from = run.integer("from_version")
            let launch = ModelFileLaunch(
                modelFile: modelFile, store: store,
                fromIndex: from == 0 ? modelFile.file.selection.versionIndex : from - 1, directory: run.directory)
            let (clock, steps) = (run.clock, run.extraMetrics)
            var metrics = try await Task.detached { try launch.run(clock: clock, steps: steps) }.value
            let deadline = (run.parameters["deadline_s"]?.numberValue ?? 20) * 1_000
            metrics[.deadlineMilliseconds] = deadline
            metrics[.killedByWatchdog] = (metrics[.timeToStoreReadyMilliseconds] ?? 0) > deadline ? 1 : 0
            return metrics
        }
        let parameters = run.parameters
        func integer(_ name: String) -> Int { run.integer(name) }
        let workDirectory = run.workDirectory
        guard let store = run.store, store.isFile,
            let mode = parameters["mode"].flatMap({ LaunchChild.Mode(rawValue: $0.description) })
        else { throw LabError(.invalidScenario, "a startup cell names no file store (sqlite, lmdb) or no mode") }
        guard let migration = StartupMigration(rawValue: parameters["migration"]?.description ?? "none") else {
            throw LabError(.invalidScenario, "migration must be one of \(StartupMigration.allCases.map(\.rawValue))")
        }
        guard migration != .history else {
            throw LabError(
                .invalidScenario,
                "migration history walks a store file's model bundle; this scenario names no store_file (and model)")
        }
        let storeVersion = integer("store_version")
        // The migration axis names the app's version; without it, app_version does (older scenario files).
        let appVersion = migration == .none ? integer("app_version") : migration.appVersion(storeVersion: storeVersion)
        guard PodModel.versions.contains(storeVersion), PodModel.versions.contains(appVersion),
            appVersion >= storeVersion
        else {
            throw LabError(
                .invalidScenario,
                "store_version \(storeVersion) and app_version \(appVersion) must be pod model versions "
                    + "\(PodModel.versions.lowerBound)…\(PodModel.versions.upperBound), the app's no older than the store's"
            )
        }
        let deadlineSeconds = parameters["deadline_s"]?.numberValue ?? 20
        let seeded = try await SeededStores.shared.store(
            in: run.sharedDirectory, store, objects: integer("objects"), version: storeVersion,
            seed: UInt64(integer("seed")))
        let launch = StartupLauncher.Launch(
            store: store, seededStore: seeded, mode: mode, appModelVersion: appVersion,
            deadline: .milliseconds(Int64(deadlineSeconds * 1_000)),
            migration: migration == .custom ? .custom : .lightweight)
        let report = try await Task.detached { try StartupLauncher().run(launch, workDirectory: workDirectory) }.value
        return try metrics(of: report, deadlineSeconds: deadlineSeconds, objects: integer("objects"))
    }

    /// A launch of the app at the scenario's version on a copy of its store file, in a child process.
    /// - Throws: `LabError.invalidScenario` for a cell on another store than SQLite, a `custom` migration, or
    ///   `none` on a store at another version; `LabError.workloadFailed` for a launch that failed (the store did not
    ///   migrate or open), not for one the watchdog killed.
    @MainActor
    private func launch(on storeFile: ScenarioStoreFile, _ modelFile: ModelFileRun, _ run: WorkloadRun) async throws
        -> [Metric: Double]
    {
        guard run.store == .sqlite else {
            throw LabError(
                .invalidScenario,
                "store_file \(storeFile.url.lastPathComponent) is a Core Data store, an SQLite file; this cell's store "
                    + "is \(run.store?.name ?? "none"), expected sqlite")
        }
        let parameters = run.parameters
        guard let mode = parameters["mode"].flatMap({ LaunchChild.Mode(rawValue: $0.description) }),
            let migration = StartupMigration(rawValue: parameters["migration"]?.description ?? "none"),
            migration != .custom
        else {
            throw LabError(
                .invalidScenario, "on a store_file, mode is sync or async and migration none, lightweight or history")
        }
        let selection = modelFile.file.selection
        if migration == .none, storeFile.versionIndex != selection.versionIndex {
            throw LabError(
                .invalidScenario,
                "store_file \(storeFile.url.lastPathComponent) is at \(storeFile.versionName) and the scenario's version is "
                    + "\(selection.version.name): migration none opens it as it is; expected migration history or "
                    + "lightweight")
        }
        let deadlineSeconds = parameters["deadline_s"]?.numberValue ?? 20
        let launch = StartupLauncher.Launch(
            storeFile: storeFile.url,
            app: StoreFileApp(selection: selection, screen: modelFile.screen, migration: migration),
            mode: mode, deadline: .milliseconds(Int64(deadlineSeconds * 1_000)))
        let workDirectory = run.workDirectory
        let report = try await Task.detached { try StartupLauncher().run(launch, workDirectory: workDirectory) }.value
        return try metrics(of: report, deadlineSeconds: deadlineSeconds, objects: storeFile.rows)
    }

    /// A launch's metrics from its report; a killed launch is a result, a failed one an error.
    /// - Throws: `LabError.workloadFailed` with the child's error.
    private func metrics(of report: LaunchReport, deadlineSeconds: Double, objects: Int) throws -> [Metric: Double] {
        if let error = report.error { throw LabError(.workloadFailed, error) }
        var metrics: [Metric: Double] = [
            .killedByWatchdog: report.killedByWatchdog ? 1 : 0,
            .migrated: report.migrated ? 1 : 0,
            .deadlineMilliseconds: deadlineSeconds * 1_000,
            .objects: Double(objects),
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

/// Stores seeded for startup runs, made once per store kind, size, model version and seed in the scenario
/// run's shared folder and reused by every launch of that run (each launch copies its store); the runner
/// removes the folder at the end.
actor SeededStores {
    /// The process's seeded stores.
    static let shared = SeededStores()
    private var made: [String: URL] = [:]

    /// The seeded store for these settings in `directory`, seeding it on first use.
    func store(in directory: URL, _ store: StoreKind, objects: Int, version: Int, seed: UInt64) async throws -> URL {
        let key = "\(store.name)-\(objects)-v\(version)-s\(seed)"
        if let url = made[directory.path + "/" + key], FileManager.default.fileExists(atPath: url.path) { return url }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent("\(key).\(store.name)")
        let seeder = PodStoreSeeder(
            store: store, objects: objects, modelVersion: version, url: url, seed: seed, replacesExisting: true)
        _ = try await Task.detached { try seeder.run() }.value
        made[directory.path + "/" + key] = url
        return url
    }
}
