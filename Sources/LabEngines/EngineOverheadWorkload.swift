import Foundation
import LabWorkloads
import ObjectStack

/// The engine-overhead workload: one operation on N pods, timed `samples` times (reads: more, until they add up
/// to `min_time_ms`), through one implementation —
/// ObjectStack on the store, the store's engine through its C API called from C (`raw`; for the in-memory store,
/// the same rows in plain Swift dictionaries and arrays), the same C API called from Swift with no object layer
/// (`swift-direct`, SQLite and LMDB: Swift's own cost), swift-direct's fetch with each row made an object uniqued
/// by key (`swift-objects`, `fetch-all` on SQLite and LMDB: the least an object layer adds), or GRDB's Codable
/// records (SQLite only). The scenario's matrix puts them side by side and the runner interleaves them per repetition;
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
/// `child-save` (the same changes saved by a child context into that context: the nested-contexts strategy's step) and
/// `import` (N pods in saves of `batch_size`, the context reset after each; read `peak_rss_mb`).
/// Every read is checked against the data written, so a fast wrong answer fails the run.
public struct EngineOverheadWorkload: Workload {
    public let name = "engine-overhead"
    /// Each store has a raw engine: the in-memory store's is plain Swift collections (`SwiftPods`).
    public let stores: [StoreKind] = [.sqlite, .lmdb, .memory]
    /// The operation's median time, its ratio to the raw engine's and what its results hold (the objects are the
    /// `objects` parameter's column). No concurrency strategy: one context, or none, on one store.
    public let metrics: [Metric] = [
        .medianMilliseconds, .ratioVsRaw, .ratioVsSwiftDirect, .ratioVsSwiftObjects, .ratioVsPerLookup, .bytesPerObject,
    ]
    public let headlineMetrics: [Metric] = [.medianMilliseconds, .ratioVsRaw, .bytesPerObject, .peakMemoryMegabytes]

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
                    "objectstack, raw (the engine's C API called from C), swift-direct (the same work in Swift calling "
                    + "the C API; SQLite and LMDB), swift-objects (swift-direct's fetch-all with each row an object "
                    + "uniqued by key: the floor under an object layer's fetch), grdb (Codable records; SQLite only) "
                    + "or raw-per-lookup "
                    + "(fetch-by-id on SQLite and LMDB: each lookup in a read transaction of its own, in C)"),
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
                "durability", .choice(Durability.allCases.map(\.rawValue)), default: nil,
                help:
                    "full, normal or off: what a save promises across a power cut, for every implementation (SQLite "
                    + "synchronous FULL, NORMAL, OFF; LMDB a synced commit, MDB_NOMETASYNC, MDB_NOSYNC); unset, the "
                    + "store's default (SQLite normal, LMDB full; the in-memory store, off). Other than the default "
                    + "only on the file stores' writes: insert, batch-insert, update, import"),
            ParameterSpec(
                "history", .boolean, default: .boolean(false),
                help:
                    "on (true): ObjectStack's store keeps persistent history, so each insert and update save also writes "
                    + "its transaction (objectstack insert and update only; ratio_vs_raw is against raw as ever)"),
        ]
    }

    public func accepts(_ parameters: [String: ScenarioValue]) -> Bool { Self.accepts(parameters) }

    /// Runs one cell in the run's folder; no concurrency strategy, the workload opens its own engines.
    @MainActor
    public func run(_ run: WorkloadRun) async throws -> [Metric: Double] {
        try Self.run(run.parameters, in: run.directory)
    }

    public func finish(_ results: inout [RunResult]) { Self.addRatios(&results) }

    /// Whether a cell makes sense: GRDB is SQLite only; swift-direct SQLite and LMDB (the in-memory store has no C
    /// API), swift-objects their `fetch-all` alone; `merge`, `child-save` and `import` are ObjectStack's alone;
    /// `batch-insert` is ObjectStack's against the raw engine's insert; a durability other than the store's own
    /// only on the writes (`durable`), where it changes what is timed.
    static func accepts(_ parameters: [String: ScenarioValue]) -> Bool {
        let implementation = parameters["implementation"]?.description
        let operation = parameters["operation"]?.description
        if implementation == Implementation.grdb.rawValue, parameters["store"]?.description != StoreKind.sqlite.name {
            return false
        }
        if implementation == Implementation.swiftDirect.rawValue,
            parameters["store"]?.description == StoreKind.memory.name
        {
            return false
        }
        if implementation == Implementation.swiftObjects.rawValue {
            return operation == Operation.fetchAll.rawValue && parameters["store"]?.description != StoreKind.memory.name
                && durabilityIsDefault(parameters) && !historyIsOn(parameters)
        }
        if implementation == Implementation.rawPerLookup.rawValue {
            return operation == Operation.fetchByID.rawValue
                && parameters["store"]?.description != StoreKind.memory.name
        }
        if !durabilityIsDefault(parameters),
            !Self.durable.contains(operation ?? "") || parameters["store"]?.description == StoreKind.memory.name
        {
            return false
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

    /// The operations that commit to the disk while timed: the only ones a durability other than the store's
    /// default changes.
    static let durable: Set<String> = [
        Operation.insert.rawValue, Operation.batchInsert.rawValue, Operation.update.rawValue,
        Operation.import.rawValue,
    ]

    /// The durability a cell runs at: the one it names, or its store's default (SQLite normal, LMDB full, the
    /// in-memory store off: nothing of it reaches a disk).
    static func durability(_ parameters: [String: ScenarioValue]) -> Durability {
        if let named = parameters["durability"].flatMap({ Durability(rawValue: $0.description) }) { return named }
        return defaultDurability(of: parameters["store"]?.description)
    }

    /// A store's own durability.
    static func defaultDurability(of store: String?) -> Durability {
        switch store {
        case StoreKind.lmdb.name: .full
        case StoreKind.sqlite.name: .normal
        default: .off
        }
    }

    /// Whether a cell runs at its store's own durability (it names none, or that one).
    static func durabilityIsDefault(_ parameters: [String: ScenarioValue]) -> Bool {
        durability(parameters) == defaultDurability(of: parameters["store"]?.description)
    }

    /// Whether a cell's store keeps persistent history (`history: on`, which YAML reads as true).
    static func historyIsOn(_ parameters: [String: ScenarioValue]) -> Bool {
        ["on", "true"].contains(parameters["history"]?.description)
    }

    /// Runs one cell in `directory` (which it creates and removes) and returns its metrics: the operation's
    /// function times it (`Operation.measure`), and the median of its samples is the run's `median_ms`.
    static func run(_ parameters: [String: ScenarioValue], in directory: URL) throws -> [Metric: Double] {
        guard let cell = EngineOverheadCell(parameters, in: directory) else {
            throw LabError(.invalidScenario, "the cell names no store, implementation and operation that fit together")
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        MallocUsage.trim()
        let samples = try cell.operation.measure(cell)
        var metrics = samples.metrics
        metrics[.wallMilliseconds] = samples.times.reduce(0, +)
        metrics[.medianMilliseconds] = samples.times.median
        if let median = samples.times.median, median > 0 {
            metrics[.objectsPerSecond] = Double(cell.objects) / (median / 1_000)
        }
        return metrics
    }

    /// Sets `ratio_vs_raw` on every successful result: the median over repetitions of its cell's median
    /// time, over the same for the raw cell of the same store, operation and size; `ratio_vs_swift_direct` the same
    /// over the swift-direct cell's, `ratio_vs_swift_objects` over the swift-objects cell's (fetch-all); and
    /// `ratio_vs_per_lookup` on fetch-by-id results, over the raw-per-lookup cell's.
    static func addRatios(_ results: inout [RunResult]) {
        func key(_ result: RunResult, implementation: String? = nil) -> [String] {
            let parameters = result.cell.parameters
            return [
                parameters["store"]?.description ?? "",
                implementation ?? parameters["implementation"]?.description ?? "",
                parameters["operation"]?.description ?? "", parameters["objects"]?.description ?? "",
                // The raw cell a history-on cell is judged against is the raw cell (which keeps no history).
                implementation == nil && historyIsOn(parameters) ? "on" : "off",
                // Both sides sync alike: a durability is judged against the raw engine at that durability.
                durability(parameters).rawValue,
            ]
        }
        var medians: [[String]: [Double]] = [:]
        for result in results where result.error == nil {
            if let median = result.metrics[.medianMilliseconds] { medians[key(result), default: []].append(median) }
        }
        let references: [(Metric, Implementation)] = [
            (.ratioVsRaw, .raw), (.ratioVsSwiftDirect, .swiftDirect), (.ratioVsSwiftObjects, .swiftObjects),
            (.ratioVsPerLookup, .rawPerLookup),
        ]
        for index in results.indices where results[index].error == nil {
            guard let own = medians[key(results[index])]?.median else { continue }
            for (metric, reference) in references {
                guard let base = medians[key(results[index], implementation: reference.rawValue)]?.median, base > 0
                else { continue }
                results[index].metrics[metric] = own / base
            }
        }
    }

    /// The most samples `min_time_ms` adds to a read's run.
    static let maximumSamples = 200
}
