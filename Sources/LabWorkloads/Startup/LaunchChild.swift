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
        // The handler returns here; the next main-queue tick is the first frame.
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
            var request = FetchRequest<ManagedObject>(entityName: "Pod")
            request.sortDescriptors = [SortKey("name"), SortKey("version")]
            request.fetchLimit = 50
            report.firstScreenRows = try context.fetch(request).count
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
