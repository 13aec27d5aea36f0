import Foundation
import LabWorkloads
import ObjectStack

/// One cell of the engine comparison: what it works on (a store, an implementation, N pods in a folder of its own)
/// and how it samples. Its operations, one function each, are in `EngineOverheadCell+Operations.swift`.
struct EngineOverheadCell {
    typealias Implementation = EngineOverheadWorkload.Implementation
    typealias Operation = EngineOverheadWorkload.Operation

    /// What an operation's run measured: the timed samples, in milliseconds, and any metric beside them.
    struct Samples {
        var times: [Double] = []
        var metrics: [Metric: Double] = [:]
    }

    let store: StoreKind
    let implementation: Implementation
    let operation: Operation
    /// The run's folder: every engine's file goes in it.
    let directory: URL
    /// The pods in the store (merge: registered in the receiving context; import: imported).
    let objects: Int
    /// Timed samples per run; reads take more, until they add up to `minimumMilliseconds`.
    let samples: Int
    let minimumMilliseconds: Double
    /// fetch-by-id: the pods read by primary key.
    let lookups: Int
    /// merge and child-save: the objects the save changes.
    let changes: Int
    /// import: the pods per save.
    let batchSize: Int
    /// Whether ObjectStack's store keeps persistent history.
    let history: Bool
    /// What a save promises across a power cut, for every implementation of the cell (the store's default when the
    /// cell names none).
    let durability: Durability

    /// The cell `parameters` name, working in `directory`; nil unless they name a store, an implementation and an
    /// operation that fit together (`EngineOverheadWorkload.accepts`).
    init?(_ parameters: [String: ScenarioValue], in directory: URL) {
        guard let store = parameters["store"].flatMap({ StoreKind.named($0.description) }),
            let implementation = parameters["implementation"].flatMap({ Implementation(rawValue: $0.description) }),
            let operation = parameters["operation"].flatMap({ Operation(rawValue: $0.description) }),
            EngineOverheadWorkload.accepts(parameters)
        else { return nil }
        self.store = store
        self.implementation = implementation
        self.operation = operation
        self.directory = directory
        objects = parameters["objects"]?.integerValue ?? 0
        samples = parameters["samples"]?.integerValue ?? 1
        minimumMilliseconds = Double(parameters["min_time_ms"]?.integerValue ?? 0)
        lookups = parameters["lookups"]?.integerValue ?? 1_000
        changes = parameters["changes"]?.integerValue ?? 1_000
        batchSize = parameters["batch_size"]?.integerValue ?? 10_000
        history = EngineOverheadWorkload.historyIsOn(parameters)
        durability = EngineOverheadWorkload.durability(parameters)
    }

    // MARK: - Data and engines

    /// The cell's pods, as every implementation writes them.
    func rows() -> [PodRow] { (0..<objects).map(PodRow.make) }

    /// A fresh engine on a new file (`sample` names it).
    func engine(_ sample: Int) throws -> any PodEngine {
        let url =
            store.isFile
            ? directory.appendingPathComponent("\(implementation.rawValue)-\(sample).\(store.name)")
            : store.location(in: directory)
        switch (implementation, store) {
        case (.objectStack, _):
            return try StackPods(store: store, url: url, history: history, durability: stackDurability)
        case (.raw, .memory): return SwiftPods()
        case (.raw, .sqlite): return try RawSQLitePods(url: url, durability: durability)
        case (.raw, .lmdb): return try RawLMDBPods(url: url, durability: durability)
        case (.rawPerLookup, .sqlite): return try RawSQLitePods(url: url, perLookup: true, durability: durability)
        case (.rawPerLookup, .lmdb): return try RawLMDBPods(url: url, perLookup: true, durability: durability)
        case (.swiftDirect, .sqlite): return try DirectSQLitePods(url: url, durability: durability)
        case (.swiftDirect, .lmdb): return try DirectLMDBPods(url: url, durability: durability)
        case (.swiftObjects, .sqlite): return UniquedPods(over: try DirectSQLitePods(url: url, durability: durability))
        case (.swiftObjects, .lmdb): return UniquedPods(over: try DirectLMDBPods(url: url, durability: durability))
        case (.grdb, .sqlite): return try GRDBPods(url: url, durability: durability)
        default:
            throw LabError(
                .invalidScenario,
                "\(implementation.rawValue) has no engine on \(store.name): raw-per-lookup, "
                    + "swift-direct and swift-objects run on SQLite and LMDB, which have C APIs, and GRDB on SQLite")
        }
    }

    /// ObjectStack on the cell's store, for the operations only it has.
    func stack() throws -> StackPods {
        let url =
            store.isFile ? directory.appendingPathComponent("objectstack.\(store.name)") : store.location(in: directory)
        return try StackPods(store: store, url: url, history: history, durability: stackDurability)
    }

    /// The durability option ObjectStack's store opens with: the cell's on a file store (the in-memory store has
    /// nothing to sync).
    private var stackDurability: Durability? { store.isFile ? durability : nil }

    /// An engine on a new file holding `rows` (inserted by the engine itself, untimed).
    func seeded(_ rows: [PodRow]) throws -> any PodEngine {
        let engine = try engine(0)
        do { try engine.insert(rows) } catch {
            engine.close()
            throw error
        }
        return engine
    }

    // MARK: - Timing and checking

    /// A read's samples: at least `samples`, then more until they add up to `minimumMilliseconds` (at most
    /// `EngineOverheadWorkload.maximumSamples`).
    func sampleReads(_ sample: () throws -> Double) throws -> [Double] {
        var times: [Double] = []
        while times.count < samples
            || (times.reduce(0, +) < minimumMilliseconds && times.count < EngineOverheadWorkload.maximumSamples)
        {
            times.append(try sample())
        }
        return times
    }

    /// The time `body` takes, in milliseconds.
    func milliseconds(_ body: () throws -> Void) throws -> Double {
        try SystemClock().measure(body).milliseconds
    }

    /// Fails the run when an implementation read something other than what was written.
    func check(_ found: Int, _ expected: Int, _ what: String) throws {
        guard found != expected else { return }
        throw LabError(
            .workloadFailed, "\(implementation.rawValue) on \(store.name): \(what) gave \(found), expected \(expected)")
    }
}
