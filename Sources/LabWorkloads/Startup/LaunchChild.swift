import Dispatch
import Foundation
import LabCore
import ObjectStack
import ObjectStackLMDB
import ObjectStackSQLite

/// The app side of a startup run: one process launching a Core Data-style stack the way an app does, in
/// `stacklab child launch` (hidden), started and watched by `StartupLauncher`.
///
/// The launch handler is the first block on the main queue. In `sync` mode it adds the store right there
/// (migrating it if the store is of an older model), as an app that builds its stack in
/// `application(_:didFinishLaunchingWithOptions:)` does; in `async` mode it asks for the store on a
/// background queue and returns (Apple's two-phase launch). The first frame is the first main-queue tick after
/// the handler returns; the first screen is a fetch of 50 pods sorted by name on the view context, once the
/// store is ready and the frame has been drawn. Lines on standard output: `first-frame`, `progress F` while
/// migrating, and `result {json}` at the end.
///
/// On a scenario's store file (`init(storeFile:url:mode:)`) the app is a version of a model bundle
/// (`StoreFileApp`): the handler loads the bundle, brings the store to that version (with `history`, a step at a
/// time through the bundle's versions and the project's mapping models, on the main thread in `sync` mode, on a
/// background queue in `async` mode), opens it, and the first screen is the scenario's.
@MainActor
public final class LaunchChild {
    /// How the launch handler adds the store.
    public enum Mode: String, Sendable, CaseIterable {
        case sync, async
    }

    private let store: StoreKind
    private let url: URL
    private let mode: Mode
    private let modelVersion: Int
    private let migration: StartupMigration
    /// The app on a scenario's store file; nil for the pod app.
    private let storeFileApp: StoreFileApp?
    private let start: UInt64
    private var report = LaunchReport()
    private var meter: MainThreadMeter?
    private var container: PersistentContainer?
    private var frameDrawn = false
    private var storeReady = false
    private var finished: CheckedContinuation<Void, Never>?
    /// The gate's test hook (`LaunchSlowdown`); nil unless its environment variable is set.
    private let slowdown: LaunchSlowdown?

    /// A launch of a store at `url`, by an app whose model is pod model `modelVersion`; with `.custom` the
    /// store reaches it through the back-filling staged migration (`StartupMigration`).
    public init(store: StoreKind, url: URL, mode: Mode, modelVersion: Int, migration: StartupMigration = .lightweight) {
        self.store = store
        self.url = url
        self.mode = mode
        self.modelVersion = modelVersion
        self.migration = migration
        storeFileApp = nil
        start =
            ProcessInfo.processInfo.environment[LaunchClock.startVariable].flatMap(UInt64.init)
            ?? LaunchClock.nowNanoseconds()
        slowdown = LaunchSlowdown()
    }

    /// A launch of the app `app` on the store file at `url` (a copy: the launch may migrate it).
    public init(storeFile app: StoreFileApp, url: URL, mode: Mode) {
        store = .sqlite
        self.url = url
        self.mode = mode
        modelVersion = 0
        migration = app.migration
        storeFileApp = app
        start =
            ProcessInfo.processInfo.environment[LaunchClock.startVariable].flatMap(UInt64.init)
            ?? LaunchClock.nowNanoseconds()
        slowdown = LaunchSlowdown()
    }

    /// Runs the launch to the first screen and returns what it measured (also printed as the `result` line).
    public func run() async -> LaunchReport {
        slowdown?.milestone()
        report.timeToMainMs = LaunchClock.milliseconds(since: start)
        let meter = MainThreadMeter()
        meter.start()
        self.meter = meter
        await withCheckedContinuation { continuation in
            finished = continuation
            DispatchQueue.main.async { MainActor.assumeIsolated { self.launchHandler() } }
        }
        Self.emit("result " + String(decoding: try! JSONEncoder().encode(report), as: UTF8.self))
        return report
    }

    private func launchHandler() {
        if let storeFileApp { return launchStoreFile(storeFileApp) }
        let model: ManagedObjectModel
        do {
            model = try PodModel.make(version: modelVersion)
        } catch {
            return fail("pod model version \(modelVersion): \(error)")
        }
        let container = PersistentContainer(name: "Launch", managedObjectModel: model, storeType: store.storeType)
        var description = StoreDescription(type: store.storeType, url: url)
        description.shouldAddStoreAsynchronously = mode == .async
        description.sourceModels = PodModel.versions.filter { $0 < modelVersion }.compactMap {
            try? PodModel.make(version: $0)
        }
        if migration == .custom {
            do {
                description.stagedMigrationManager = try StartupMigration.customStages(appVersion: modelVersion)
            } catch {
                return fail("the custom migration stages of pod model version \(modelVersion): \(error)")
            }
        }
        description.migrationProgress = { progress in
            Self.emit("progress \(String(format: "%.3f", progress.fractionCompleted))")
            DispatchQueue.main.async {
                MainActor.assumeIsolated {
                    self.report.migrated = true
                    self.report.migrationFraction = progress.fractionCompleted
                }
            }
        }
        container.persistentStoreDescriptions = [description]
        self.container = container
        container.loadPersistentStores { _, error in
            let ready = LaunchClock.milliseconds(since: self.start)
            DispatchQueue.main.async {
                MainActor.assumeIsolated {
                    if let error { return self.fail("the store did not load: \(error)") }
                    self.report.timeToStoreReadyMs = ready
                    self.storeReady = true
                    self.showFirstScreenWhenPossible()
                }
            }
        }
        drawFirstFrameNext()
    }

    /// The launch handler of the app on a store file: the bundle loaded here (as a container's initializer loads
    /// the compiled model), the store brought to the app's version and opened, here or on a background queue.
    private func launchStoreFile(_ app: StoreFileApp) {
        let versions: [ModelVersion]
        do {
            versions = try ManagedObjectModel.versions(contentsOf: app.bundle)
        } catch {
            return fail("the model bundle \(app.bundle.lastPathComponent): \(error)")
        }
        guard let target = versions.first(where: { $0.name == app.version }) else {
            return fail("the model bundle \(app.bundle.lastPathComponent) has no version \(app.version)")
        }
        let container = PersistentContainer(name: "Launch", managedObjectModel: target.model, storeType: .sqlite)
        var description = StoreDescription(type: .sqlite, url: url)
        if app.migration == .lightweight {
            description.sourceModels = versions.filter { $0.name != target.name }.map(\.model)
        }
        description.migrationProgress = { progress in self.reportProgress(progress.fractionCompleted) }
        container.persistentStoreDescriptions = [description]
        self.container = container
        let (url, start) = (url, start)
        let open: @Sendable () -> Void = {
            if app.migration == .history {
                do {
                    var migration = try StoreFileMigration(store: url, bundle: app.bundle, to: app.version)
                    // Reading a mapping model decodes the two models it archives: most launches find the store at
                    // its version already and read none.
                    if migration.startIndex < migration.targetIndex {
                        let found = MappingModelSearch.mappingModels(near: app.bundle)
                        migration.stepMigration = StoreFileMigration.mappingModelSteps(found.models)
                        // The launch cannot load the app's Swift policies: a step that needs one fails before any.
                        try migration.checkPolicies(found.models, policies: EntityMigrationPolicies())
                    }
                    let result = try migration.run { _, progress in
                        self.reportProgress(progress.fractionCompleted)
                    }
                    // A mapping-model step reports no progress; the walk's steps say whether it migrated.
                    if result.steps.contains(where: { $0.kind != "unchanged" }) { self.reportProgress(1) }
                } catch {
                    let message = "the store's migration to \(app.version) failed: \(error)"
                    DispatchQueue.main.async { MainActor.assumeIsolated { self.fail(message) } }
                    return
                }
            }
            container.loadPersistentStores { _, error in
                let ready = LaunchClock.milliseconds(since: start)
                let message = error.map { "the store did not load: \($0)" }
                DispatchQueue.main.async {
                    MainActor.assumeIsolated {
                        if let message { return self.fail(message) }
                        self.report.timeToStoreReadyMs = ready
                        self.storeReady = true
                        self.showFirstScreenWhenPossible()
                    }
                }
            }
        }
        if mode == .sync {
            open()
        } else {
            DispatchQueue.global(qos: .userInitiated).async(execute: open)
        }
        drawFirstFrameNext()
    }

    /// Reports migration progress to the parent at once, and to the report on the main queue.
    nonisolated private func reportProgress(_ fraction: Double) {
        Self.emit("progress \(String(format: "%.3f", fraction))")
        DispatchQueue.main.async {
            MainActor.assumeIsolated {
                self.report.migrated = true
                self.report.migrationFraction = fraction
            }
        }
    }

    /// The handler returns after this; the next main-queue tick is the first frame.
    private func drawFirstFrameNext() {
        DispatchQueue.main.async {
            MainActor.assumeIsolated {
                self.slowdown?.milestone()
                self.report.timeToFirstFrameMs = LaunchClock.milliseconds(since: self.start)
                Self.emit("first-frame")
                self.frameDrawn = true
                self.showFirstScreenWhenPossible()
            }
        }
    }

    private func showFirstScreenWhenPossible() {
        guard frameDrawn, storeReady, let context = container?.viewContext, finished != nil else { return }
        do {
            if let app = storeFileApp {
                let rows = try context.fetch(try app.request())
                if let key = app.shownKey { for row in rows { _ = row.value(forKey: key) } }
                report.firstScreenRows = rows.count
            } else {
                var request = FetchRequest<ManagedObject>(entityName: "Pod")
                request.sortDescriptors = [SortKey("name"), SortKey("version")]
                request.fetchLimit = 50
                report.firstScreenRows = try context.fetch(request).count
            }
            slowdown?.milestone()
            report.timeToFirstScreenMs = LaunchClock.milliseconds(since: start)
            report.cpuToFirstScreenMs = LaunchClock.processCPUMilliseconds()
        } catch {
            report.error = "the first screen's fetch failed: \(error)"
        }
        finish()
    }

    private func fail(_ message: String) {
        report.error = message
        finish()
    }

    private func finish() {
        report.mainMaxStallMs = meter?.stop().maxStallMilliseconds
        finished?.resume()
        finished = nil
    }

    /// Prints a protocol line at once: the parent reads them as they come.
    nonisolated static func emit(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
