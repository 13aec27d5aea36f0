import Foundation
import LabCore
import ObjectStack

/// The read-write mix: `readers` loops on the main context each fetching a page of pods `reads_per_s` times a
/// second, while `writers` background contexts each write `write_rate` pods a second (half new pods, half
/// updates of existing ones found by one IN fetch) in saves of `batch_size`, for `duration_s`.
///
/// On a model file the store is seeded with the scenario's population (`objects` is not read), the readers page
/// through the first screen, and each writer save is half new objects of its entity (`ModelObjectInserter`:
/// every required attribute and relationship filled) and half updates of existing ones (`ModelObjectUpdater`);
/// an entity with no attribute outside its uniqueness constraints, which no update can change, gets inserts
/// only. `inserted` counts the new objects of the first screen's entity.
struct ReadWriteMixWorkload: StackWorkload {
    let name = "read-write-mix"
    let acceptsModelFiles = true
    /// On a store file the mix runs on a copy of it, at the scenario's version, instead of a seeded store.
    let readsStoreFiles = true
    /// The session's metrics, and on a model file what the writes inserted and deleted.
    let metrics: [Metric] = Metric.session + [.inserted, .deleted]
    let headlineMetrics: [Metric] = [
        .objectsPerSecond, .fetchP50Milliseconds, .fetchP99Milliseconds, .mainMaxStallMilliseconds,
        .mainHitchMillisecondsPerSecond, .mergeTotalMilliseconds, .cpuMilliseconds, .peakMemoryMegabytes,
    ]

    /// Creates the workload.
    init() {}

    var parameters: [ParameterSpec] {
        stackParameters + [
            ParameterSpec(
                "objects", .integer(minimum: 0), default: .integer(10_000), quick: .integer(1_500),
                help: "pods in the store before the run"),
            ParameterSpec(
                "readers", .integer(minimum: 1), default: .integer(2), help: "reader loops on the main context"),
            ParameterSpec(
                "reads_per_s", .number(above: 0), default: .integer(30), help: "fetches per second per reader"),
            ParameterSpec("writers", .integer(minimum: 1), default: .integer(1), help: "background writers"),
            ParameterSpec(
                "write_rate", .number(above: 0), default: .integer(2_000),
                help: "pods written per second per writer (half inserts, half updates)"),
            ParameterSpec("batch_size", .integer(minimum: 1), default: .integer(200), help: "pods per writer save"),
            ParameterSpec(
                "duration_s", .number(above: 0), default: .integer(3), quick: .number(0.5),
                help: "how long the readers and writers run"),
        ]
    }

    @MainActor
    func run(_ session: RunSession) async throws -> WorkloadOutcome {
        if let modelFile = session.modelFile { return try await run(session, on: modelFile) }
        let stack = session.stack
        let seeded = session.integer("objects")
        try stack.seed(count: seeded, seed: session.seed)
        let duration = session.number("duration_s")
        let batchSize = session.integer("batch_size")
        let interval = Double(batchSize) / session.number("write_rate")
        let readInterval = 1 / session.number("reads_per_s")
        let names = Catalogue.synthetic(count: seeded, seed: session.seed).specs.map(\.name)
        let writers = try (0..<session.integer("writers")).map { _ in try stack.newBackgroundContext() }

        let clock = session.run.clock
        let (written, wall) = try await session.measure { start in
            let deadline = start + duration * 1_000
            let writes = writers.enumerated().map { number, context in
                Task { @MainActor in
                    try await Self.write(
                        into: context, stack: stack, number: number, batchSize: batchSize, every: interval,
                        until: deadline, existing: names, seed: session.seed)
                }
            }
            let main = stack.main
            let readerCount = session.integer("readers")
            let reads = (0..<readerCount).map { reader in
                Task { @MainActor in
                    var request = FetchRequest<Pod>(entityName: "Pod")
                    request.sortDescriptors = [SortKey("name")]
                    request.fetchLimit = 50
                    var offset = reader * 50
                    // At least one round, so a loaded machine still gives the run its writes and reads.
                    repeat {
                        request.fetchOffset = offset % max(seeded, 1)
                        offset += 50 * (reader + 1)
                        session.timedFetch(request, on: main)
                        try await Task.sleep(for: .seconds(readInterval))
                    } while clock.nowMilliseconds() < deadline
                }
            }
            var written = 0
            for task in writes { written += try await task.value }
            for task in reads { try await task.value }
            try await stack.drainMainQueue()
            return written
        }
        return WorkloadOutcome(wallMilliseconds: wall, objects: written, storedObjects: try await stack.storedCount())
    }

    /// The mix on a model file: the population seeded, first-screen pages read, objects of its entity updated.
    @MainActor
    func run(_ session: RunSession, on modelFile: ModelFileRun) async throws -> WorkloadOutcome {
        let stack = session.stack
        // A store file's copy is already in place (`prepare`); otherwise the population is seeded.
        if modelFile.file.storeFile == nil { _ = try modelFile.seed(stack) }
        let duration = session.number("duration_s")
        let batchSize = session.integer("batch_size")
        let interval = Double(batchSize) / session.number("write_rate")
        let readInterval = 1 / session.number("reads_per_s")
        let screen = modelFile.screen
        let listed = max(modelFile.screenObjects, 1)
        let writers = try (0..<session.integer("writers")).map { number in
            (
                try stack.newBackgroundContext(),
                try ModelObjectUpdater(modelFile, seed: session.seed &+ 1 &+ UInt64(number))
            )
        }
        // One inserter for every writer: its numbering keeps their unique values apart.
        let inserter = try ModelObjectInserter(
            plan: modelFile.plan, entity: writers[0].1.entityName, seed: session.seed &+ 0x5EED)
        let family = Set(screen.entity.selfAndDescendants.map(\.name))
        let clock = session.run.clock
        let ((written, inserted), wall) = try await session.measure { start in
            let deadline = start + duration * 1_000
            let writes = writers.enumerated().map { number, writer in
                Task { @MainActor in
                    let (context, updater) = writer
                    let resets = context !== stack.main
                    var (written, inserted, rounds) = (0, 0, 0)
                    // Half inserts, half updates; all inserts when no attribute can be updated.
                    let inserts = updater.canUpdate ? (batchSize + 1) / 2 : batchSize
                    // At least one round, so a loaded machine still gives the run its writes and reads.
                    repeat {
                        let due = clock.nowMilliseconds() + interval * 1_000
                        let (offset, round) = ((number + 1) * 7_919 + rounds * batchSize, rounds)
                        let (changed, new) = try await context.perform {
                            let made = try inserter.insert(inserts, into: context)
                            let updated = try updater.update(
                                count: batchSize - inserts, offset: offset, round: round, in: context)
                            let new = context.insertedObjects.filter { family.contains($0.entity.name) }.count
                            if made + updated > 0 { try stack.save(context) }
                            if resets { context.reset() }
                            return (made + updated, new)
                        }
                        written += changed
                        inserted += new
                        rounds += 1
                        let wait = due - clock.nowMilliseconds()
                        if wait > 0 { try await Task.sleep(for: .milliseconds(wait)) }
                    } while clock.nowMilliseconds() < deadline
                    return (written, inserted)
                }
            }
            let main = stack.main
            let reads = (0..<session.integer("readers")).map { reader in
                Task { @MainActor in
                    var offset = reader * screen.limit
                    // At least one round, so a loaded machine still gives the run its writes and reads.
                    repeat {
                        session.timedFetch(screen, offset: offset % listed, on: main)
                        offset += screen.limit * (reader + 1)
                        try await Task.sleep(for: .seconds(readInterval))
                    } while clock.nowMilliseconds() < deadline
                }
            }
            var (written, inserted) = (0, 0)
            for task in writes {
                let (changed, new) = try await task.value
                written += changed
                inserted += new
            }
            for task in reads { try await task.value }
            try await stack.drainMainQueue()
            return (written, inserted)
        }
        return WorkloadOutcome(
            wallMilliseconds: wall, objects: written, storedObjects: try await modelFile.storedCount(stack),
            metrics: [.inserted: Double(inserted), .deleted: 0])
    }

    /// One writer: a save of `batchSize` pods every `interval` seconds until the deadline; returns pods written.
    @MainActor
    static func write(
        into context: ManagedObjectContext, stack: LabStack, number: Int, batchSize: Int, every interval: Double,
        until deadline: Double, existing: [String], seed: UInt64
    ) async throws -> Int {
        var random = SplitMix64(seed: seed &+ UInt64(number) &* 7_919)
        var written = 0
        var batch = 0
        let clock = stack.clock
        let resets = context !== stack.main
        // At least one save, as the model-file mix does: a writer whose task starts after the deadline (the
        // main actor busy on a loaded machine) still writes, so the run always has a save and its merge.
        repeat {
            let due = clock.nowMilliseconds() + interval * 1_000
            let inserts = (0..<(batchSize + 1) / 2).map { index in
                PodSpec(
                    name: "Writer\(number)-\(batch)-\(index)", version: "1.0.0", authors: "Writer \(number)",
                    summary: "written during the mix", downloads: Int64(index))
            }
            let updates =
                existing.isEmpty
                ? [] : (0..<batchSize / 2).map { _ in existing[Int(random.next() % UInt64(existing.count))] }
            let bump = Int64(batch + 1)
            written += try await context.perform {
                for spec in inserts { Pod(context: context).apply(spec) }
                var request = FetchRequest<Pod>(entityName: "Pod")
                request.predicate = try FetchPredicate(format: "name IN %@", updates)
                request.returnsObjectsAsFaults = false
                let found = updates.isEmpty ? [] : try context.fetch(request)
                for pod in found { pod.downloads += bump }
                try stack.save(context)
                if resets { context.reset() }
                return inserts.count + found.count
            }
            batch += 1
            let wait = due - clock.nowMilliseconds()
            if wait > 0 { try await Task.sleep(for: .milliseconds(wait)) }
        } while clock.nowMilliseconds() < deadline
        return written
    }
}
