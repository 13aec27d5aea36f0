import CLMDB
import Foundation
import ObjectStack
import ObjectStackLMDB

/// Measures `LMDBStore` against plain LMDB calls on the same rows, side by side in one run.
///
/// Per repetition: the store saves N new pods in one save request (one write transaction), fetches them all
/// as rows, and reads each by object ID in random order (`snapshots(for:)`, one call per ID). The store is
/// then closed, its encoded rows are read back, and the plain side puts those same bytes with `mdb_put` in
/// one write transaction, scans them with a cursor decoding the same eight fields, and reads each with
/// `mdb_get` in the same random order. Both sides use the same environment flags and durable commits.
/// Repetitions interleave the two sides, so machine noise hits them alike.
public struct LMDBEngineBenchmark: Sendable {
    /// One repetition's timings, in milliseconds.
    public struct Sample: Sendable {
        public var storeSave: Double
        public var plainPut: Double
        public var storeFetch: Double
        public var plainScan: Double
        public var storeLookups: Double
        public var plainGets: Double
        public var plainGetsDecoding: Double
    }

    public var count: Int
    public var repetitions: Int
    public var folder: URL?
    /// Whether the pod model keeps its uniqueness constraint and index (the store then writes three B-trees
    /// per save where the plain loop writes one); false measures the rows alone.
    public var indexed: Bool

    /// Creates the benchmark; `folder` holds the store files (a fresh temporary folder when nil).
    public init(count: Int, repetitions: Int, folder: URL? = nil, indexed: Bool = true) {
        self.count = count
        self.repetitions = repetitions
        self.folder = folder
        self.indexed = indexed
    }

    /// Runs every repetition.
    public func run() throws -> [Sample] {
        let base = folder ?? FileManager.default.temporaryDirectory.appendingPathComponent("engine-lmdb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        defer { if folder == nil { try? FileManager.default.removeItem(at: base) } }
        var model = try PodModel.make()
        if !indexed {
            let pod = model.entitiesByName["Pod"]!
            model = try ManagedObjectModel(entities: [EntityDescription(name: "Pod", managedObjectClass: Pod.self,
                attributes: pod.declaredAttributes.map {
                    AttributeDescription(name: $0.name, type: $0.type, isOptional: $0.isOptional, defaultValue: $0.defaultValue)
                })])
        }
        return try (1...repetitions).map { repetition in
            try measure(model: model, in: base.appendingPathComponent("run\(repetition)"))
        }
    }

    private func measure(model: ManagedObjectModel, in directory: URL) throws -> Sample {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ContinuousClock()
        let storeURL = directory.appendingPathComponent("store.lmdb")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .lmdb, at: storeURL)
        let entity = model.entitiesByName["Pod"]!
        let ids = try store.newObjectIDs(for: entity, count: count)
        var request = StoreSaveRequest()
        request.inserts = ids.enumerated().map { index, id in (id, Self.podValues(index, entity: entity)) }

        var sample = Sample(storeSave: 0, plainPut: 0, storeFetch: 0, plainScan: 0, storeLookups: 0, plainGets: 0,
            plainGetsDecoding: 0)
        sample.storeSave = try milliseconds(clock) { _ = try store.execute(request) }
        request = StoreSaveRequest()
        sample.storeFetch = try milliseconds(clock) {
            guard case .objects(let rows) = try store.execute(StoreFetchRequest(entity: entity)), rows.count == count else {
                throw StoreError(code: .objectNotFound, message: "the store fetch did not return every pod")
            }
        }
        var generator = SplitMix64(seed: 42)
        let order = ids.shuffled(using: &generator)
        sample.storeLookups = try milliseconds(clock) {
            for id in order {
                guard let snapshot = try store.snapshots(for: [id])[0], snapshot.values.count == 8 else {
                    throw StoreError(code: .objectNotFound, message: "a pod was not found by ID")
                }
            }
        }
        try coordinator.remove(store)

        let rows = try PlainLMDB.readRows(of: storeURL, database: "rows/Pod")
        let plain = try PlainLMDB(url: directory.appendingPathComponent("plain.lmdb"))
        defer { plain.close() }
        sample.plainPut = try milliseconds(clock) { try plain.putAll(rows) }
        sample.plainScan = try milliseconds(clock) {
            let decoded = try plain.scanDecoding()
            guard decoded == count else { throw StoreError(code: .corrupt, message: "the plain scan decoded \(decoded) rows") }
        }
        let keys = order.map { $0.primaryKey! }
        sample.plainGets = try milliseconds(clock) { try plain.getAll(keys, decoding: false) }
        sample.plainGetsDecoding = try milliseconds(clock) { try plain.getAll(keys, decoding: true) }
        return sample
    }

    private func milliseconds(_ clock: ContinuousClock, _ body: () throws -> Void) throws -> Double {
        var failure: Error?
        let elapsed = clock.measure {
            do { try body() } catch { failure = error }
        }
        if let failure { throw failure }
        return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
    }

    /// A pod's stored values, in the entity's stored order; deterministic in `index`.
    static func podValues(_ index: Int, entity: EntityDescription) -> [StoreValue] {
        let scrambled = UInt64(index) &* 0x9E37_79B9_7F4A_7C15
        let byName: [String: StoreValue] = [
            "name": .string("Pod\(String(scrambled >> 40, radix: 36))\(index)"),
            "version": .string("\(index % 5).\(index % 13).\(index % 7)"),
            "authors": .string("Author \(index % 997)"),
            "homepage": index % 10 == 0 ? .null : .string("https://github.com/owner\(index % 1000)/pod\(index)"),
            "license": [.string("MIT"), .string("Apache-2.0"), .string("BSD"), .null][index % 4],
            "summary": .string("A small library, number \(index), that does one thing well on iOS and macOS."),
            "downloads": .integer(Int64(scrambled >> 44)),
            "updated": .double(Double(700_000_000 + index * 37)),
        ]
        return entity.storedProperties.map { byName[$0.name] ?? .null }
    }

    /// The median of each measure, with the store-to-plain ratios and the targets.
    public static func table(_ samples: [Sample]) -> String {
        func median(_ values: [Double]) -> Double { values.median ?? 0 }
        func cell(_ value: Double, _ width: Int) -> String {
            let text = String(format: "%.1f", value)
            return String(repeating: " ", count: max(0, width - text.count)) + text
        }
        var lines = ["operation (median of \(samples.count), ms)   store     plain   ratio  target"]
        func row(_ name: String, _ store: [Double], _ plain: [Double], _ target: String) {
            let s = median(store), p = median(plain)
            lines.append(name.padding(toLength: 38, withPad: " ", startingAt: 0) + cell(s, 8) + cell(p, 10)
                + String(format: "  %5.2fx", s / p) + "  " + target)
        }
        row("save, one write txn vs mdb_put loop", samples.map(\.storeSave), samples.map(\.plainPut), "2x")
        row("fetch all vs cursor scan + decode", samples.map(\.storeFetch), samples.map(\.plainScan), "2.5x")
        row("lookup by ID vs mdb_get", samples.map(\.storeLookups), samples.map(\.plainGets), "3x")
        row("lookup by ID vs mdb_get + decode", samples.map(\.storeLookups), samples.map(\.plainGetsDecoding), "-")
        lines.append("repetitions (store/plain ms): " + samples.map {
            String(format: "save %.0f/%.0f fetch %.0f/%.0f get %.0f/%.0f", $0.storeSave, $0.plainPut, $0.storeFetch,
                $0.plainScan, $0.storeLookups, $0.plainGets)
        }.joined(separator: "; "))
        return lines.joined(separator: "\n")
    }
}
