import Foundation
import LabCore
import ObjectStack

/// A launch on a model file's store, in this process: the store seeded with the scenario's population (at an
/// earlier version when `from_version` names one), then opened at the scenario's version — migrating through
/// every version in between as a launch's staged lightweight migration would — and the first screen fetched.
///
/// The launch's parts are timed on the run's clock: the migration trip (`ModelHistory`: each step on its own,
/// then the whole trip as one staged migration and open), the open, and the first-screen fetch. A trip with a
/// step no lightweight migration covers cannot launch without the app's own migration code: the run fails
/// naming the step and why.
struct ModelFileLaunch {
    /// The run's model file.
    let modelFile: ModelFileRun
    /// The store kind (a file store).
    let store: StoreKind
    /// The version the store is seeded at: an index into the file's versions.
    let fromIndex: Int
    /// The run's folder.
    let directory: URL

    /// The launch's metrics: `time_to_store_ready_ms` (migration and open), `time_to_first_screen_ms` (then the
    /// first screen), `wall_ms` (the migration steps one by one, added up), `migrated`, `objects`; each step's
    /// migration time goes to `steps`, in its `Metric.migrationStep(from:to:)`.
    /// - Throws: `LabError.workloadFailed` for a step that is not lightweight or fails; the stores' errors.
    func run(clock: any LabClock, steps: ExtraMetrics? = nil) throws -> [Metric: Double] {
        let selection = modelFile.file.selection
        let to = selection.versionIndex
        guard fromIndex <= to else {
            throw LabError(
                .invalidScenario,
                "from_version \(fromIndex + 1) is after the scenario's version \(selection.version.name) "
                    + "(\(to + 1) of \(selection.versions.count)); expected 1…\(to + 1), or 0 for no migration")
        }
        var metrics: [Metric: Double] = [.objects: Double(modelFile.plan.objectCount), .migrated: 0]
        var migration = 0.0
        if fromIndex < to {
            let history = try ModelHistory.run(
                versions: selection.versions, from: fromIndex, to: to, spec: modelFile.plan.spec,
                seed: modelFile.plan.seed, store: store, directory: directory.appendingPathComponent("history"))
            // One item per blocked step, each reason on its own line below it: a long history is read, not scrolled.
            let blocked = history.steps.compactMap { step -> String? in
                switch step.verdict {
                case .notLightweight(let reasons):
                    return "  - \(step.from) -> \(step.to) is not lightweight:"
                        + reasons.map { "\n      - \($0)" }.joined()
                case .failed(let message): return "  - \(step.from) -> \(step.to) failed: \(message)"
                case .unavailable(let message): return "  - \(step.from) -> \(step.to) is unavailable: \(message)"
                default: return nil
                }
            }
            guard blocked.isEmpty, let launch = history.launchDuration else {
                throw LabError(
                    .workloadFailed,
                    "a launch from \(history.versionNames.first ?? "?") to \(history.versionNames.last ?? "?") needs "
                        + "the app's own migration code for \(blocked.count) step\(blocked.count == 1 ? "" : "s"):\n"
                        + blocked.joined(separator: "\n"))
            }
            for (number, step) in history.steps.enumerated() {
                guard let duration = step.duration else { continue }
                let from = fromIndex + number + 1
                steps?.set(duration.milliseconds, for: .migrationStep(from: from, to: from + 1))
            }
            metrics[.wallMilliseconds] = history.stepsTotal.milliseconds
            metrics[.migrated] = history.steps.contains { $0.verdict.migrated } ? 1 : 0
            // The launch's staged migration includes its open; the open below is then the same store's, again.
            migration = launch.milliseconds - history.openDuration.milliseconds
        }
        // The store the launch opens: seeded at the scenario's version (the migrated store has the same objects).
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = store.location(in: directory)
        _ = try ModelPopulator.populateStore(modelFile.plan, store: store, url: url)
        let start = clock.nowMilliseconds()
        let coordinator = try LabStack.openCoordinator(store: store, at: url, model: selection.model)
        let ready = clock.nowMilliseconds() - start + max(migration, 0)
        let main = ManagedObjectContext(concurrencyType: .privateQueue)
        main.persistentStoreCoordinator = coordinator
        let screen = modelFile.screen
        let (_, fetch) = try clock.measure {
            try main.performAndWait { () throws -> Int in
                let objects = try main.fetch(screen.request())
                if let key = screen.shownKey { for object in objects { _ = object.value(forKey: key) } }
                return objects.count
            }
        }
        for opened in coordinator.persistentStores { try? coordinator.remove(opened) }
        metrics[.timeToStoreReadyMilliseconds] = ready
        metrics[.timeToFirstScreenMilliseconds] = ready + fetch
        metrics[.wallMilliseconds] = metrics[.wallMilliseconds] ?? ready + fetch
        metrics[.fetches] = 1
        return metrics
    }
}
