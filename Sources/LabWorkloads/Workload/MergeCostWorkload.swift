import Foundation
import LabCore
import ObjectStack

/// The merge-cost workload: the main context holds `registered` pods (fetched and materialised, with the
/// `MainContextObserver` attached — the fetched results controller's hook), then `merges` times a background
/// context saves `changes` changes (a third inserts, a third updates of registered pods, a third deletes) and
/// the strategy brings them into the main context. `merge_total_ms` is the main-thread time of those merges.
///
/// `observer: none` runs the same merges with nothing watching the main context, so a matrix over `observer`
/// gives the fetched results controller's share of a merge.
///
/// On a model file the store is seeded with the scenario's population and the changes are to the first screen's
/// entity: inserts that fill every required attribute and relationship (`ModelObjectInserter`), updates with
/// generated values (`ModelObjectUpdater`), and deletes the model's delete rules allow (`DeleteRuleCheck`: a
/// refused candidate is passed over for the next and counted in `deletes_refused`). The main context registers
/// the first screen's objects and the fetched results controller runs the first screen's fetch. After the merges
/// the main context, its controller and the store must all hold the seeded objects plus `inserted` minus
/// `deleted`; a merge that did not arrive fails the run.
struct MergeCostWorkload: StackWorkload {
    let name = "merge-cost"
    let acceptsModelFiles = true
    /// Only the strategies that merge a background save into the main context.
    let strategies = StackStrategies.merging
    /// The session's metrics, and on a model file what the merged saves inserted, deleted and could not delete.
    let metrics: [Metric] = Metric.session + [.inserted, .deleted, .deletesRefused]
    let headlineMetrics: [Metric] = [
        .mergeTotalMilliseconds, .mergeMaxMilliseconds, .mainMaxStallMilliseconds,
        .mainHitchMillisecondsPerSecond, .fetchP99Milliseconds, .cpuMilliseconds,
    ]
    /// The main thread's time per merge against the objects registered and against the changes, log–log, a
    /// line per strategy and value of the other axis.
    let charts: [ChartSpec] = [(String, String, String)](
        [
            ("registered", "changes", "objects registered in the main context"),
            ("changes", "registered", "changes per merged save"),
        ]
    ).map { axis, other, label in
        .lines(
            .ratio(Metric.mergeTotalMilliseconds.name, per: Metric.merges.name, name: "ms_per_merge"),
            against: .column(axis), series: ["strategy", other], xLog: true, yLog: true,
            title: "time per merge against \(label)", xLabel: label, yLabel: "main-thread time per merge (ms)")
    }

    /// Creates the workload.
    init() {}

    var parameters: [ParameterSpec] {
        stackParameters + [
            ParameterSpec(
                "registered", .integer(minimum: 0), default: .integer(10_000), quick: .integer(1_000),
                help: "objects registered in the main context when the merges arrive"),
            ParameterSpec(
                "changes", .integer(minimum: 3), default: .integer(1_000), quick: .integer(300),
                help: "changes per background save: a third inserts, a third updates, a third deletes"),
            ParameterSpec(
                "merges", .integer(minimum: 1), default: .integer(5), quick: .integer(2),
                help: "background saves merged per run"),
            ParameterSpec(
                "observer", .choice(MainContextObservers.names), default: .text("frc"),
                help: "what watches the main context during the merges: frc (a fetched results controller) or none"),
        ]
    }

    @MainActor
    func run(_ session: RunSession) async throws -> WorkloadOutcome {
        if let modelFile = session.modelFile { return try await run(session, on: modelFile) }
        let stack = session.stack
        let registered = session.integer("registered")
        let changes = session.integer("changes")
        let merges = session.integer("merges")
        let third = changes / 3
        let seeded = max(registered, 2 * third * merges)
        try stack.seed(count: seeded, seed: session.seed)

        let main = stack.main
        // The main context registers the first `registered` pods by name, materialised, as a long list would.
        let held: [Pod] = try main.performAndWait {
            var request = FetchRequest<Pod>(entityName: "Pod")
            request.sortDescriptors = [SortKey("name")]
            request.fetchLimit = registered
            request.returnsObjectsAsFaults = false
            return registered > 0 ? try main.fetch(request) : []
        }
        let observer = try MainContextObservers.attach(
            session.text("observer") ?? "frc", to: main, request: RunSession.firstScreenRequest())
        let background = try stack.newBackgroundContext()
        let ids: [ManagedObjectID] = try await background.perform {
            var request = FetchRequest<ManagedObjectID>(entityName: "Pod")
            request.sortDescriptors = [SortKey("name")]
            return try background.fetch(request)
        }

        let (_, wall) = try await session.measure { _ in
            for merge in 0..<merges {
                // Updates walk the registered pods from the front, deletes take pods from the back: disjoint.
                let updates = Array(ids.dropFirst(merge * third).prefix(third))
                let deletes = Array(ids.dropLast(merge * third).suffix(third))
                try await background.perform {
                    for index in 0..<third {
                        Pod(context: background).apply(
                            PodSpec(
                                name: "Merged\(merge)-\(index)", version: "1.0.0", authors: "merge cost"))
                    }
                    for id in updates { (background.object(with: id) as? Pod)?.downloads += 1 }
                    for id in deletes { background.delete(background.object(with: id)) }
                    try stack.save(background)
                    background.reset()
                }
                try await stack.drainMainQueue()
            }
        }
        withExtendedLifetime((held, observer)) {}
        return WorkloadOutcome(
            wallMilliseconds: wall, objects: third * 3 * merges, storedObjects: try await stack.storedCount())
    }
}
