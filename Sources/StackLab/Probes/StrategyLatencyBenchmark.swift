import Foundation
import ObjectStack
import ObjectStackLMDB
import ObjectStackSQLite
import Synchronization

/// Measures what a background import costs the main-queue context, for two stack designs: the latency of a
/// first-screen fetch run again and again on the main context while a private context inserts and saves batches.
///
/// - `shared-coordinator`: both contexts on one coordinator, so every store request, the main context's
///   fetches included, queues behind the coordinator's lock while a save's transaction holds it.
/// - `separate-stacks`: each context with its own coordinator and store instance on the same file (SQLite: a
///   connection each, WAL; LMDB: MVCC readers), the main context merging the background's saves with
///   `mergeChanges(fromContextDidSave:)` on the main queue. A fetch should not wait for a save.
///
/// Every run starts from a fresh store seeded with the same pods; the strategies alternate within each
/// repetition so machine noise hits both alike.
public struct StrategyLatencyBenchmark: Sendable {
    /// How the two contexts reach the store.
    public enum Strategy: String, Sendable, CaseIterable {
        case sharedCoordinator = "shared-coordinator"
        case separateStacks = "separate-stacks"
    }

    /// The store the runs use.
    public enum Store: String, Sendable, CaseIterable {
        case sqlite
        case lmdb
        case memory

        var type: StoreType {
            switch self {
            case .sqlite: return .sqlite
            case .lmdb: return .lmdb
            case .memory: return .inMemory
            }
        }
    }

    /// One run of one strategy.
    public struct Sample: Sendable {
        public var strategy: Strategy
        public var repetition: Int
        /// Each main-context fetch's latency in milliseconds, in the order they ran.
        public var fetchMilliseconds: [Double]
        /// Pods the background context inserted.
        public var insertedObjects: Int
        /// The background context's time for every batch, inserts and saves, in milliseconds.
        public var backgroundMilliseconds: Double
        /// The background saves the main context merged (0 under `shared-coordinator`, which does not merge).
        public var mergedSaves: Int
        /// Pods in the store at the end, counted through the main context.
        public var storedCount: Int

        /// Background throughput: inserted pods per second.
        public var objectsPerSecond: Double {
            backgroundMilliseconds > 0 ? Double(insertedObjects) / (backgroundMilliseconds / 1_000) : 0
        }
    }

    /// The `downloads >= %d` bound of the first-screen fetch; pods get downloads 0..<1000, so about half match.
    public static let downloadsThreshold = 500
    /// Rows on the first screen.
    public static let screenSize = 50

    public var store: Store
    /// Pods in the store before the background context starts.
    public var objects: Int
    /// Background saves per run.
    public var batches: Int
    /// Pods per background save.
    public var batchSize: Int
    /// Runs of each strategy.
    public var repetitions: Int

    /// Creates the benchmark.
    public init(store: Store, objects: Int, batches: Int, batchSize: Int, repetitions: Int) {
        self.store = store
        self.objects = objects
        self.batches = batches
        self.batchSize = batchSize
        self.repetitions = repetitions
    }

    /// Runs every repetition of both strategies. Must be awaited on the main actor: the main-queue context's
    /// blocks run on `DispatchQueue.main`, which drains only while the main actor is suspended in an `await`.
    @MainActor
    public func run() async throws -> [Sample] {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("stacklab-strategy-latency-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var samples: [Sample] = []
        for repetition in 1...repetitions {
            // Alternate which strategy goes first, so neither always runs on the warmer machine.
            let order = repetition % 2 == 1 ? Strategy.allCases : Array(Strategy.allCases.reversed())
            for strategy in order {
                let location = storeLocation(in: directory, strategy: strategy, repetition: repetition)
                samples.append(try await runOnce(strategy: strategy, repetition: repetition, at: location))
            }
        }
        return samples
    }

    // MARK: - One run

    /// The two contexts of one run and the coordinators behind them.
    private struct Stack {
        var main: ManagedObjectContext
        var background: ManagedObjectContext
        var coordinators: [PersistentStoreCoordinator]

        /// Closes every store, so files can be removed and LMDB's shared environment is released.
        func close() {
            for coordinator in coordinators {
                for store in coordinator.persistentStores { try? coordinator.remove(store) }
            }
        }
    }

    /// What the importer task and the merge blocks report to the main actor's fetch loop.
    private final class RunProgress: Sendable {
        let importFinished = Atomic<Bool>(false)
        let mergedSaves = Atomic<Int>(0)
    }

    /// One run of one strategy: seed a fresh store, start the importer, fetch on the main queue until it is done.
    @MainActor
    private func runOnce(strategy: Strategy, repetition: Int, at location: URL) async throws -> Sample {
        let stack = try makeStack(strategy, at: location)
        defer { stack.close() }
        let (main, background) = (stack.main, stack.background)
        try seed(stack.coordinators.last!)

        let progress = RunProgress()
        var observer: (any NSObjectProtocol)?
        if strategy == .separateStacks {
            // queue: nil runs the observer inside the background save; it only hands the notification to the
            // main queue, as an app would, so the merge is main-queue work and the save does not wait for it.
            observer = NotificationCenter.default.addObserver(
                forName: ManagedObjectContext.didSaveNotification, object: background, queue: nil
            ) { notification in
                // Safe to send: the merge reads only the notification's object IDs, never the background's objects.
                nonisolated(unsafe) let saved = notification
                main.perform {
                    main.mergeChanges(fromContextDidSave: saved)
                    progress.mergedSaves.add(1, ordering: .relaxed)
                }
            }
        }
        defer { if let observer { NotificationCenter.default.removeObserver(observer) } }

        let request = try Self.firstScreenRequest()
        let importer = Task.detached { [self] in
            defer { progress.importFinished.store(true, ordering: .releasing) }
            return try await importBatches(into: background)
        }
        var latencies: [Double] = []
        do {
            // At least one fetch, so a run whose import finishes at once still yields a sample.
            repeat {
                latencies.append(try await main.perform {
                    let clock = ContinuousClock()
                    let start = clock.now
                    let screen = try main.fetch(request)
                    for pod in screen { _ = pod.name }  // what a list shows: the rows' values, not just faults
                    return start.duration(to: clock.now).milliseconds
                })
            } while !progress.importFinished.load(ordering: .acquiring)
        } catch {
            // Let the importer finish before the deferred close pulls the stores from under it.
            _ = try? await importer.value
            throw error
        }
        let backgroundMilliseconds = try await importer.value

        // Enqueued after every merge block (each was enqueued inside its save), so the count sees them done.
        let storedCount = try await main.perform { try main.count(for: FetchRequest<Pod>(entityName: "Pod")) }
        return Sample(
            strategy: strategy, repetition: repetition, fetchMilliseconds: latencies,
            insertedObjects: batches * batchSize, backgroundMilliseconds: backgroundMilliseconds,
            mergedSaves: progress.mergedSaves.load(ordering: .relaxed), storedCount: storedCount)
    }

    private func storeLocation(in directory: URL, strategy: Strategy, repetition: Int) -> URL {
        let name = "\(strategy.rawValue)-\(repetition)"
        switch store {
        case .sqlite: return directory.appendingPathComponent("\(name).sqlite")
        case .lmdb: return directory.appendingPathComponent("\(name).lmdb")
        case .memory: return URL(string: "memory://strategy-latency-\(name)-\(UUID().uuidString)")!
        }
    }

    /// The contexts of a strategy on a fresh store. The background's coordinator is the last one.
    private func makeStack(_ strategy: Strategy, at location: URL) throws -> Stack {
        let model = try PodModel.make()
        func coordinator() throws -> PersistentStoreCoordinator {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(type: store.type, at: location)
            return coordinator
        }
        let coordinators = strategy == .sharedCoordinator ? [try coordinator()] : [try coordinator(), try coordinator()]
        let main = ManagedObjectContext(concurrencyType: .mainQueue)
        main.name = "main"
        main.persistentStoreCoordinator = coordinators.first
        let background = ManagedObjectContext(concurrencyType: .privateQueue)
        background.name = "background"
        background.persistentStoreCoordinator = coordinators.last
        return Stack(main: main, background: background, coordinators: coordinators)
    }

    /// Writes the initial pods in one save through a throwaway context, so no context starts with them registered.
    private func seed(_ coordinator: PersistentStoreCoordinator) throws {
        guard objects > 0 else { return }
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        let total = objects + batches * batchSize
        try context.performAndWait {
            for index in 0..<objects { Self.insertPod(index, of: total, into: context) }
            try context.save()
            context.reset()
        }
    }

    /// The background's work: every batch inserted and saved (one transaction each); returns milliseconds.
    private func importBatches(into background: ManagedObjectContext) async throws -> Double {
        let (objects, batches, batchSize) = (self.objects, self.batches, self.batchSize)
        let total = objects + batches * batchSize
        return try await background.perform {
            let clock = ContinuousClock()
            let start = clock.now
            for batch in 0..<batches {
                let first = objects + batch * batchSize
                for index in first..<first + batchSize { Self.insertPod(index, of: total, into: background) }
                try background.save()
                // An importer lets go of what it saved; otherwise every batch would carry the last ones.
                background.reset()
            }
            return start.duration(to: clock.now).milliseconds
        }
    }

    /// Inserts pod number `index` of `total`. Names are a permutation of the indexes (the stride is coprime with
    /// the total), so new pods sort among the seeded ones and change the first screen, as a real import would.
    private static func insertPod(_ index: Int, of total: Int, into context: ManagedObjectContext) {
        let stride = total % 7_919 == 0 ? 1 : 7_919
        let pod = Pod(context: context)
        pod.name = String(format: "Pod%07d", (index &* stride) % total)
        pod.version = "1.\(index % 10).0"
        pod.authors = "Author \(index % 97)"
        pod.homepage = "https://example.org/pods/\(index)"
        pod.license = index % 3 == 0 ? "MIT" : "Apache-2.0"
        pod.summary = "A pod for the strategy benchmark, number \(index)."
        pod.downloads = Int64(index % 1_000)
        pod.updated = Double(index)
    }

    /// The first screen of a pod list: 50 pods with enough downloads, by name.
    public static func firstScreenRequest() throws -> FetchRequest<Pod> {
        var request = FetchRequest<Pod>(entityName: "Pod")
        request.predicate = try FetchPredicate(format: "downloads >= %d", downloadsThreshold)
        request.sortDescriptors = [SortKey("name")]
        request.fetchLimit = screenSize
        return request
    }

    // MARK: - Report

    /// The nearest-rank percentile (`fraction` in 0...1) of ascending `sorted` values; 0 for none.
    public static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    /// One row per strategy, every repetition's fetches pooled, then the separate/shared ratios of p50 and max,
    /// then each run's p50 and max in the order they ran, so the reader can see how much runs differ.
    public static func table(_ samples: [Sample], store: Store) -> String {
        let header = ["strategy", "store", "fetches", "p50_ms", "p90_ms", "p99_ms", "max_ms", "save_objects_per_s"]
        var rows: [[String]] = []
        var p50 = [Strategy: Double](), maximum = [Strategy: Double]()
        for strategy in Strategy.allCases {
            let runs = samples.filter { $0.strategy == strategy }
            guard !runs.isEmpty else { continue }
            let latencies = runs.flatMap(\.fetchMilliseconds).sorted()
            let seconds = runs.map(\.backgroundMilliseconds).reduce(0, +) / 1_000
            let throughput = seconds > 0 ? Double(runs.map(\.insertedObjects).reduce(0, +)) / seconds : 0
            p50[strategy] = percentile(latencies, 0.5)
            maximum[strategy] = latencies.last ?? 0
            rows.append([
                strategy.rawValue, store.rawValue, "\(latencies.count)",
                milliseconds(percentile(latencies, 0.5)), milliseconds(percentile(latencies, 0.9)),
                milliseconds(percentile(latencies, 0.99)), milliseconds(latencies.last ?? 0),
                String(format: "%.0f", throughput),
            ])
        }
        var lines = aligned([header] + rows)
        if let shared50 = p50[.sharedCoordinator], let separate50 = p50[.separateStacks],
           let sharedMax = maximum[.sharedCoordinator], let separateMax = maximum[.separateStacks] {
            lines.append("")
            lines.append("separate/shared: p50 \(ratio(separate50, shared50)), max \(ratio(separateMax, sharedMax))")
        }
        lines.append("")
        let perRun = samples.map { sample -> [String] in
            let latencies = sample.fetchMilliseconds.sorted()
            return [
                "\(sample.repetition)", sample.strategy.rawValue, "\(latencies.count)",
                milliseconds(percentile(latencies, 0.5)), milliseconds(latencies.last ?? 0),
                String(format: "%.0f", sample.objectsPerSecond), "\(sample.storedCount)",
            ]
        }
        lines += aligned([["run", "strategy", "fetches", "p50_ms", "max_ms", "save_objects_per_s", "stored"]] + perRun)
        return lines.joined(separator: "\n")
    }

    private static func milliseconds(_ value: Double) -> String { String(format: "%.3f", value) }

    private static func ratio(_ numerator: Double, _ denominator: Double) -> String {
        denominator > 0 ? String(format: "%.2fx", numerator / denominator) : "n/a"
    }

    /// Left-aligns the first two columns (names) and right-aligns the rest (numbers).
    private static func aligned(_ rows: [[String]]) -> [String] {
        TextTable.render(header: rows[0], rows: Array(rows.dropFirst()), leftAligned: [0, 1])
            .split(separator: "\n").enumerated().filter { $0.offset != 1 }.map { String($0.element).trimmingCharacters(in: .whitespaces) }
    }
}
