import Foundation
import LabWorkloads
import ObjectStack

/// The engine-overhead workload: one operation on N pods, timed `samples` times (reads: more, until they add up
/// to `min_time_ms`), through one implementation —
/// ObjectStack on the store, the store's engine through its C API (`raw`; for the in-memory store, the same
/// rows in plain Swift dictionaries and arrays), or GRDB's Codable records (SQLite only). The scenario's matrix puts the three side by side and the runner interleaves them per repetition;
/// `ratio_vs_raw` is then this cell's median over the raw cell's, same store, operation and size.
///
/// Operations: `insert` (N pods in one save, fresh file each sample), `fetch-all` (all N, every value read;
/// also `bytes_per_object`, the heap the materialised results hold), `fetch-by-id` (`lookups` random pods by
/// primary key / object ID, one read transaction), `fetch-sorted` (the first 50 pods by name, ties by primary key:
/// a list's first screen), `update` (every tenth pod changed and saved), `count` (pods
/// with more than 2^19 downloads, about half), `batch-insert` (N pods in one `BatchInsertRequest` from dictionaries
/// built beforehand, fresh file each sample; the raw side runs its `insert`, so the ratio is against the engine's
/// insert of the same rows), and for ObjectStack only `merge` (a `changes`-object save, half
/// updates of registered pods, merged into a context holding the N pods registered and materialised),
/// `child-save` (the same changes saved by a child context into that context: the nested-contexts design's step) and
/// `import` (N pods in saves of `batch_size`, the context reset after each; read `peak_rss_mb`).
/// Every read is checked against the data written, so a fast wrong answer fails the run.
public struct EngineOverheadWorkload: Workload {
    public let name = "engine-overhead"
    /// Each store has a raw engine: the in-memory store's is plain Swift collections (`SwiftPods`).
    public let stores: [StoreKind] = [.sqlite, .lmdb, .memory]
    /// The operation's objects, its median time, its ratio to the raw engine's and what its results hold. (No
    /// stack design: one context, or none, on one store.)
    public let metrics: [Metric] = [.objects, .medianMilliseconds, .ratioVsRaw, .ratioVsPerLookup, .bytesPerObject]
    public let headlineMetrics: [Metric] = [.medianMilliseconds, .ratioVsRaw, .bytesPerObject, .peakMemoryMegabytes]
    /// `objects` is a metric column of its own (so it is not also a matrix column).
    public let parametersReportedAsMetrics: Set<String> = ["objects"]

    /// Creates the workload.
    public init() {}

    public var parameters: [ParameterSpec] {
        [
            ParameterSpec(
                "store", .choice(stores.map(\.name)), default: nil,
                help: "the store, and the engine the raw side calls"),
            ParameterSpec(
                "implementation", .choice(Implementation.allCases.map(\.rawValue)), default: nil,
                help:
                    "objectstack, raw (the engine's C API), grdb (Codable records; SQLite only) or raw-per-lookup "
                    + "(fetch-by-id on SQLite and LMDB: each lookup in a read transaction of its own)"),
            ParameterSpec(
                "operation", .choice(Operation.allCases.map(\.rawValue)), default: nil,
                help:
                    "insert, fetch-all, fetch-by-id, fetch-sorted, update, count, batch-insert (raw: its insert); "
                    + "merge and import for objectstack"),
            ParameterSpec(
                "objects", .integer(minimum: 10), default: .integer(10_000), quick: .integer(2_000),
                help: "pods in the store (merge: registered in the receiving context; import: imported)"),
            ParameterSpec(
                "samples", .integer(minimum: 1), default: .integer(3), quick: .integer(1),
                help: "timed samples per run; median_ms is their median"),
            ParameterSpec(
                "min_time_ms", .integer(minimum: 0), default: .integer(50), quick: .integer(0),
                help: "reads (fetch-all, fetch-by-id, fetch-sorted, count): more samples, up to "
                    + "\(Self.maximumSamples), until the timed ones add up to this; a median of 3 samples of a "
                    + "0.1 ms fetch is the scheduler's noise"),
            ParameterSpec(
                "lookups", .integer(minimum: 1), default: .integer(1_000), quick: .integer(200),
                help: "fetch-by-id: pods read by primary key"),
            ParameterSpec(
                "changes", .integer(minimum: 2), default: .integer(1_000), quick: .integer(200),
                help: "merge: objects the background save changes (half updates, half inserts)"),
            ParameterSpec(
                "batch_size", .integer(minimum: 1), default: .integer(10_000), quick: .integer(500),
                help: "import: pods per save; the context is reset after each"),
            ParameterSpec(
                "history", .boolean, default: .boolean(false),
                help:
                    "on (true): ObjectStack's store keeps persistent history, so each insert and update save also writes "
                    + "its transaction (objectstack insert and update only; ratio_vs_raw is against raw as ever)"),
        ]
    }

    public func accepts(_ parameters: [String: ScenarioValue]) -> Bool { Self.accepts(parameters) }

    /// Runs one cell in the run's folder; no stack design, the workload opens its own engines.
    @MainActor
    public func run(_ run: WorkloadRun) async throws -> [Metric: Double] {
        try Self.run(run.parameters, in: run.directory)
    }

    public func finish(_ results: inout [RunResult]) { Self.addRatios(&results) }

    /// The implementations a cell can name.
    enum Implementation: String, CaseIterable {
        case objectStack = "objectstack"
        case raw
        case grdb
        /// fetch-by-id as `existingObject(with:)` must do it: each lookup in a read transaction of its own (SQLite:
        /// one cached statement stepped in its implicit transaction; LMDB: one read transaction renewed and reset).
        case rawPerLookup = "raw-per-lookup"
    }

    /// The operations a cell can name.
    enum Operation: String, CaseIterable {
        case insert
        case fetchAll = "fetch-all"
        case fetchByID = "fetch-by-id"
        case fetchSorted = "fetch-sorted"
        case update
        case count
        case merge
        case childSave = "child-save"
        case `import`
        case batchInsert = "batch-insert"
    }

    /// Whether a cell makes sense: GRDB is SQLite only; `merge`, `child-save` and `import` are ObjectStack's alone;
    /// `batch-insert` is ObjectStack's against the raw engine's insert.
    static func accepts(_ parameters: [String: ScenarioValue]) -> Bool {
        let implementation = parameters["implementation"]?.description
        let operation = parameters["operation"]?.description
        if implementation == Implementation.grdb.rawValue, parameters["store"]?.description != StoreKind.sqlite.name {
            return false
        }
        if implementation == Implementation.rawPerLookup.rawValue {
            return operation == Operation.fetchByID.rawValue
                && parameters["store"]?.description != StoreKind.memory.name
        }
        if historyIsOn(parameters),
            implementation != Implementation.objectStack.rawValue
                || (operation != Operation.insert.rawValue && operation != Operation.update.rawValue)
        {
            return false
        }
        if operation == Operation.batchInsert.rawValue {
            return implementation != Implementation.grdb.rawValue
        }
        if operation == Operation.merge.rawValue || operation == Operation.import.rawValue
            || operation == Operation.childSave.rawValue
        {
            return implementation == Implementation.objectStack.rawValue
        }
        return true
    }

    /// Whether a cell's store keeps persistent history (`history: on`, which YAML reads as true).
    static func historyIsOn(_ parameters: [String: ScenarioValue]) -> Bool {
        ["on", "true"].contains(parameters["history"]?.description)
    }

    /// Runs one cell in `directory` (which it creates) and returns its metrics.
    static func run(_ parameters: [String: ScenarioValue], in directory: URL) throws -> [Metric: Double] {
        guard let store = parameters["store"].flatMap({ StoreKind.named($0.description) }),
            let implementation = parameters["implementation"].flatMap({ Implementation(rawValue: $0.description) }),
            let operation = parameters["operation"].flatMap({ Operation(rawValue: $0.description) }),
            accepts(parameters)
        else {
            throw LabError(.invalidScenario, "the cell names no store, implementation and operation that fit together")
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let objects = parameters["objects"]?.integerValue ?? 0
        let samples = parameters["samples"]?.integerValue ?? 1
        let minimumTime = Double(parameters["min_time_ms"]?.integerValue ?? 0)
        /// A read's samples: at least `samples`, then more until they add up to `minimumTime`.
        func sampleReads(_ sample: () throws -> Double) throws -> [Double] {
            var times: [Double] = []
            while times.count < samples || (times.reduce(0, +) < minimumTime && times.count < Self.maximumSamples) {
                times.append(try sample())
            }
            return times
        }
        var run = Cell(store: store, implementation: implementation, directory: directory, objects: objects)
        run.history = historyIsOn(parameters)
        MallocUsage.trim()
        var times: [Double] = []
        var metrics: [Metric: Double] = [.objects: Double(objects)]
        switch operation {
        case .insert:
            let rows = run.rows()
            for sample in 0..<samples {
                let engine = try run.engine(sample)
                defer { engine.close() }
                times.append(try milliseconds { try engine.insert(rows) })
            }
        case .batchInsert:
            // ObjectStack: one BatchInsertRequest of dictionaries built beforehand (not timed); the raw side: its
            // insert of the same rows, which a batch insert is judged against.
            let rows = run.rows()
            for sample in 0..<samples {
                let engine = try run.engine(sample)
                defer { engine.close() }
                if let stack = engine as? StackPods {
                    let objects = StackPods.batchObjects(rows)
                    times.append(try milliseconds { try stack.batchInsert(objects) })
                } else {
                    times.append(try milliseconds { try engine.insert(rows) })
                }
                try run.check(try engine.count(downloadsAbove: -1), rows.count, "the pods a batch insert wrote")
            }
        case .fetchAll:
            let rows = run.rows()
            let expected = rows.reduce(0) { $0 &+ $1.checksum }
            let engine = try run.seeded(rows)
            defer { engine.close() }
            times = try sampleReads {
                try engine.reopen()
                MallocUsage.trim()
                let before = MallocUsage.bytesInUse()
                var result: (held: Any, checksum: Int) = ([], 0)
                let time = try milliseconds { result = try engine.fetchAll() }
                let held = MallocUsage.bytesInUse() - before
                try run.check(result.checksum, expected, "fetch-all")
                if metrics[.bytesPerObject] == nil { metrics[.bytesPerObject] = Double(held) / Double(max(objects, 1)) }
                withExtendedLifetime(result.held) {}
                return time
            }
        case .fetchByID:
            let rows = run.rows()
            var generator = SplitMix64(seed: 7)
            let keys = Array(
                rows.map { $0.id }.shuffled(using: &generator).prefix(parameters["lookups"]?.integerValue ?? 1_000))
            let expected = keys.reduce(0) { $0 &+ rows[Int($1) - 1].checksum }
            let engine = try run.seeded(rows)
            defer { engine.close() }
            times = try sampleReads {
                try engine.reopen()
                try engine.prepareLookups(keys)
                var checksum = 0
                let time = try milliseconds { checksum = try engine.fetchByID() }
                try run.check(checksum, expected, "fetch-by-id")
                return time
            }
        case .fetchSorted:
            let rows = run.rows()
            let limit = 50
            let first = rows.sorted { ($0.name, $0.id) < ($1.name, $1.id) }.prefix(limit)
            let expected = first.reduce(0) { $0 &+ $1.checksum }
            let engine = try run.seeded(rows)
            defer { engine.close() }
            times = try sampleReads {
                try engine.reopen()
                var checksum = 0
                let time = try milliseconds { checksum = try engine.fetchSorted(limit: limit) }
                try run.check(checksum, expected, "fetch-sorted")
                return time
            }
        case .update:
            let rows = run.rows()
            let keys = Array(stride(from: Int64(1), through: Int64(objects), by: 10))
            let engine = try run.seeded(rows)
            defer { engine.close() }
            for sample in 0..<samples {
                try engine.reopen()
                try engine.prepareUpdate(keys)
                times.append(try milliseconds { try engine.update(round: sample) })
            }
            try engine.reopen()
            // Every sample added one to the downloads of every tenth pod.
            let expected = rows.reduce(0) { $0 &+ $1.checksum } &+ keys.count * samples * 2
            try run.check(try engine.fetchAll().checksum, expected, "the pods after update")
        case .count:
            let rows = run.rows()
            let expected = rows.filter { $0.downloads > PodRow.countThreshold }.count
            let engine = try run.seeded(rows)
            defer { engine.close() }
            times = try sampleReads {
                try engine.reopen()
                var count = 0
                let time = try milliseconds { count = try engine.count(downloadsAbove: PodRow.countThreshold) }
                try run.check(count, expected, "count")
                return time
            }
        case .merge, .childSave:
            let engine = try run.stack()
            defer { engine.close() }
            try engine.insert(run.rows())
            try engine.reopen()
            try engine.register(objects)
            let changes = parameters["changes"]?.integerValue ?? 1_000
            for sample in 0..<samples {
                let duration =
                    operation == .merge
                    ? try engine.measureMerge(round: sample, changes: changes, registered: objects)
                    : try engine.measureChildSave(round: sample, changes: changes, registered: objects)
                times.append(duration.milliseconds)
            }
        case .import:
            let engine = try run.stack()
            defer { engine.close() }
            let batchSize = parameters["batch_size"]?.integerValue ?? 10_000
            times.append(try milliseconds { try engine.importInBatches(objects, batchSize: batchSize) })
            try run.check(try engine.storedCount(), objects, "pods imported")
        }
        metrics[.wallMilliseconds] = times.reduce(0, +)
        metrics[.medianMilliseconds] = times.median
        if let median = times.median, median > 0 { metrics[.objectsPerSecond] = Double(objects) / (median / 1_000) }
        return metrics
    }

    /// Sets `ratio_vs_raw` on every successful result: the median over repetitions of its cell's median
    /// time, over the same for the raw cell of the same store, operation and size; and `ratio_vs_per_lookup` on
    /// fetch-by-id results, over the raw-per-lookup cell's.
    static func addRatios(_ results: inout [RunResult]) {
        func key(_ result: RunResult, implementation: String? = nil) -> [String] {
            let parameters = result.cell.parameters
            return [
                parameters["store"]?.description ?? "",
                implementation ?? parameters["implementation"]?.description ?? "",
                parameters["operation"]?.description ?? "", parameters["objects"]?.description ?? "",
                // The raw cell a history-on cell is judged against is the raw cell (which keeps no history).
                implementation == nil && historyIsOn(parameters) ? "on" : "off",
            ]
        }
        var medians: [[String]: [Double]] = [:]
        for result in results where result.error == nil {
            if let median = result.metrics[.medianMilliseconds] { medians[key(result), default: []].append(median) }
        }
        for index in results.indices where results[index].error == nil {
            guard let own = medians[key(results[index])]?.median,
                let raw = medians[key(results[index], implementation: Implementation.raw.rawValue)]?.median, raw > 0
            else { continue }
            results[index].metrics[.ratioVsRaw] = own / raw
        }
        for index in results.indices where results[index].error == nil {
            guard let own = medians[key(results[index])]?.median,
                let perLookup = medians[key(results[index], implementation: Implementation.rawPerLookup.rawValue)]?
                    .median, perLookup > 0
            else { continue }
            results[index].metrics[.ratioVsPerLookup] = own / perLookup
        }
    }

    /// The most samples `min_time_ms` adds to a read's run.
    static let maximumSamples = 200

    private static func milliseconds(_ body: () throws -> Void) throws -> Double {
        try SystemClock().measure(body).milliseconds
    }

    /// What one cell works on.
    private struct Cell {
        let store: StoreKind
        let implementation: Implementation
        let directory: URL
        let objects: Int
        /// Whether ObjectStack's store keeps persistent history.
        var history = false

        func rows() -> [PodRow] { (0..<objects).map(PodRow.make) }

        /// A fresh engine on a new file (`sample` names it).
        func engine(_ sample: Int) throws -> any PodEngine {
            let url =
                store == .memory
                ? store.location(in: directory)
                : directory.appendingPathComponent("\(implementation.rawValue)-\(sample).\(store.name)")
            switch (implementation, store) {
            case (.objectStack, _): return try StackPods(store: store, url: url, history: history)
            case (.raw, .memory): return SwiftPods()
            case (.raw, .sqlite): return try RawSQLitePods(url: url)
            case (.raw, .lmdb): return try RawLMDBPods(url: url)
            case (.rawPerLookup, .sqlite): return try RawSQLitePods(url: url, perLookup: true)
            case (.rawPerLookup, .lmdb): return try RawLMDBPods(url: url, perLookup: true)
            case (.rawPerLookup, .memory):
                throw LabError(.invalidScenario, "raw-per-lookup runs on SQLite and LMDB, which have transactions")
            case (.grdb, .sqlite): return try GRDBPods(url: url)
            default: throw LabError(.invalidScenario, "no raw engine for store \(store)")
            }
        }

        func stack() throws -> StackPods {
            let url =
                store == .memory
                ? store.location(in: directory) : directory.appendingPathComponent("objectstack.\(store.name)")
            return try StackPods(store: store, url: url, history: history)
        }

        /// An engine on a new file holding `rows` (inserted by the engine itself, untimed).
        func seeded(_ rows: [PodRow]) throws -> any PodEngine {
            let engine = try engine(0)
            do { try engine.insert(rows) } catch {
                engine.close()
                throw error
            }
            return engine
        }

        /// Fails the run when an implementation read something other than what was written.
        func check(_ found: Int, _ expected: Int, _ what: String) throws {
            guard found != expected else { return }
            throw LabError(
                .workloadFailed,
                "\(implementation.rawValue) on \(store.name): \(what) gave \(found), expected \(expected)")
        }
    }
}
