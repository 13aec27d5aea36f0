import Foundation
import LabCore
import ObjectStack

/// The save-chain workload: `saves` times, a background context inserts `objects` pods and saves them to the
/// store the strategy's way — directly (`shared-coordinator`, `separate-stacks`), on the main context
/// (`main-only`), or child → main → root → store (`nested-contexts`). `wall_ms` is the sum of the saves' times,
/// measured on the saving queue; `merge_total_ms` is the main-queue part of the chain.
///
/// On a model file the store is first seeded with the scenario's population, and each save updates `objects`
/// objects of the first screen's entity (at most as many as there are; `ModelObjectUpdater`) instead of inserting.
struct SaveChainWorkload: StackWorkload {
    let name = "save-chain"
    let acceptsModelFiles = true
    let headlineMetrics: [Metric] = [
        .wallMilliseconds, .objectsPerSecond, .mergeTotalMilliseconds, .mainMaxStallMilliseconds,
        .fetchP99Milliseconds,
    ]

    /// Creates the workload.
    init() {}

    var parameters: [ParameterSpec] {
        stackParameters + [
            ParameterSpec(
                "objects", .integer(minimum: 1), default: .integer(1_000), quick: .integer(200), help: "pods per save"),
            ParameterSpec(
                "saves", .integer(minimum: 1), default: .integer(10), quick: .integer(3), help: "saves per run"),
        ]
    }

    @MainActor
    func run(_ session: RunSession) async throws -> WorkloadOutcome {
        let stack = session.stack
        let objects = session.integer("objects")
        let saves = session.integer("saves")
        let background = try stack.newBackgroundContext()
        let resets = background !== stack.main
        let modelFile = session.modelFile
        let updater = try modelFile.map {
            _ = try $0.seed(stack)
            return try ModelObjectUpdater($0, seed: session.seed &+ 1)
        }
        // The saves are timed on the saving queue: the phase's wall time would add the main queue's waits.
        let ((saveMilliseconds, written), _) = try await session.measure { _ in
            var (saveMilliseconds, written) = (0.0, 0)
            for save in 0..<saves {
                let (milliseconds, saved) = try await background.perform {
                    var saved = objects
                    if let updater {
                        saved = try updater.update(count: objects, offset: save * objects, round: save, in: background)
                    } else {
                        for index in 0..<objects {
                            Pod(context: background).apply(
                                PodSpec(
                                    name: "Chain\(save)-\(index)", version: "1.0.0", authors: "save chain",
                                    downloads: Int64(index)))
                        }
                    }
                    let (_, milliseconds) = try stack.clock.measure { try stack.save(background) }
                    if resets { background.reset() }
                    return (milliseconds, saved)
                }
                saveMilliseconds += milliseconds
                written += saved
            }
            try await stack.drainMainQueue()
            return (saveMilliseconds, written)
        }
        let stored: Int
        if let modelFile {
            stored = try await modelFile.storedCount(stack)
        } else {
            stored = try await stack.storedCount()
        }
        return WorkloadOutcome(wallMilliseconds: saveMilliseconds, objects: written, storedObjects: stored)
    }
}
