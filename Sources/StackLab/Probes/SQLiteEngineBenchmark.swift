import CSQLite
import Foundation
import ObjectStack
import ObjectStackSQLite

/// Measures the SQLite store against the raw C API, side by side in one run: a context save of N new pods
/// against one prepared INSERT in a loop in one transaction, and a fetch of those N pods with every
/// attribute read against a plain `sqlite3_step` loop reading the same columns.
///
/// The raw table is the store's own `Z_Pod` table, created by the store in a fresh file (same columns, same
/// indexes: the model's `byName` index and the lookup index of the `(name, version)` constraint), so the
/// ratio is the stack's overhead and not a schema difference. Both sides use WAL and synchronous NORMAL.
public struct SQLiteEngineBenchmark: Sendable {
    /// One repetition's timings, in milliseconds.
    public struct Sample: Sendable {
        public var stackSave: Double
        public var rawSave: Double
        public var stackFetch: Double
        public var rawFetch: Double
        /// The store alone, below the context: `execute(StoreSaveRequest)` and `execute(StoreFetchRequest)`.
        public var storeSave: Double
        public var storeFetch: Double
    }

    public var objects: Int
    public var repetitions: Int

    /// Creates the benchmark.
    public init(objects: Int, repetitions: Int) {
        self.objects = objects
        self.repetitions = repetitions
    }

    /// Runs every repetition, stack and raw interleaved, each in fresh files.
    public func run() throws -> [Sample] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stacklab-engine-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var samples: [Sample] = []
        for repetition in 1...repetitions {
            let stackURL = directory.appendingPathComponent("stack-\(repetition).sqlite")
            let rawURL = directory.appendingPathComponent("raw-\(repetition).sqlite")
            let stackSave = try measureStackSave(stackURL)
            let rawSave = try measureRawSave(rawURL)
            let stackFetch = try measureStackFetch(stackURL)
            let rawFetch = try measureRawFetch(rawURL)
            let (storeSave, storeFetch) = try measureStore(directory.appendingPathComponent("store-\(repetition).sqlite"))
            samples.append(Sample(stackSave: stackSave, rawSave: rawSave, stackFetch: stackFetch, rawFetch: rawFetch,
                storeSave: storeSave, storeFetch: storeFetch))
        }
        return samples
    }

    private static func pod(_ index: Int) -> (String, String, String, String?, String?, String?, Int64, Double) {
        ("pod\(index)", "1.\(index % 10).0", "Author \(index % 97)", "https://example.org/pod\(index)",
            index % 3 == 0 ? nil : "MIT", "A pod that does thing \(index)", Int64(index * 7), Double(index) * 0.5)
    }

    private func stack(_ url: URL) throws -> (PersistentStoreCoordinator, ManagedObjectContext) {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try PodModel.make())
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return (coordinator, context)
    }

    private func measureStackSave(_ url: URL) throws -> Double {
        let (_, context) = try stack(url)
        let clock = ContinuousClock()
        return try context.performAndWait {
            for index in 0..<objects {
                let values = Self.pod(index)
                let pod = Pod(context: context)
                pod.name = values.0
                pod.version = values.1
                pod.authors = values.2
                pod.homepage = values.3
                pod.license = values.4
                pod.summary = values.5
                pod.downloads = values.6
                pod.updated = values.7
            }
            return try clock.measure { try context.save() }.benchmarkMilliseconds
        }
    }

    private func measureStackFetch(_ url: URL) throws -> Double {
        // A fresh coordinator: nothing cached from the save.
        let (_, context) = try stack(url)
        let clock = ContinuousClock()
        return try context.performAndWait {
            var checksum = 0
            let elapsed = try clock.measure {
                let pods = try context.fetch(FetchRequest<Pod>(entityName: "Pod"))
                for pod in pods {
                    checksum &+= pod.name.utf8.count &+ pod.version.utf8.count &+ pod.authors.utf8.count
                    checksum &+= (pod.homepage?.utf8.count ?? 0) &+ (pod.license?.utf8.count ?? 0)
                    checksum &+= (pod.summary?.utf8.count ?? 0) &+ Int(pod.downloads) &+ Int(pod.updated)
                }
            }
            guard checksum != 0 else { throw CocoaError(.featureUnsupported) }
            return elapsed.benchmarkMilliseconds
        }
    }

    /// The store's own save and fetch, without a context: where the stack's time goes.
    private func measureStore(_ url: URL) throws -> (Double, Double) {
        let model = try PodModel.make()
        let entity = model.entitiesByName["Pod"]!
        let store = try SQLiteStore(StoreOpenRequest(model: model, configurationName: nil, url: url, options: [:]))
        defer { store.close() }
        let clock = ContinuousClock()
        var request = StoreSaveRequest()
        let ids = try store.newObjectIDs(for: entity, count: objects)
        request.inserts = ids.enumerated().map { index, id in
            let v = Self.pod(index)
            return (id, [.string(v.0), .string(v.1), .string(v.2), v.3.map(StoreValue.string) ?? .null,
                v.4.map(StoreValue.string) ?? .null, v.5.map(StoreValue.string) ?? .null, .integer(v.6), .double(v.7)])
        }
        let save = try clock.measure { _ = try store.execute(request) }.benchmarkMilliseconds
        var count = 0
        let fetch = try clock.measure {
            if case .objects(let rows) = try store.execute(StoreFetchRequest(entity: entity)) { count = rows.count }
        }.benchmarkMilliseconds
        guard count == objects else { throw CocoaError(.featureUnsupported) }
        return (save, fetch)
    }

    private func measureRawSave(_ url: URL) throws -> Double {
        // Let the store create the same table and indexes, then write through the C API only.
        do { _ = try stack(url) }
        let db = try RawDatabase(url)
        defer { db.close() }
        let insert = try db.prepare(
            "INSERT INTO Z_Pod (Z_PK, Z_ENT, Z_OPT, name, version, authors, homepage, license, summary, downloads, updated) "
                + "VALUES (?, 1, 1, ?, ?, ?, ?, ?, ?, ?, ?)")
        defer { sqlite3_finalize(insert) }
        let clock = ContinuousClock()
        return try clock.measure {
            try db.exec("BEGIN IMMEDIATE")
            for index in 0..<objects {
                let values = Self.pod(index)
                sqlite3_bind_int64(insert, 1, Int64(index + 1))
                RawDatabase.bind(values.0, insert, 2)
                RawDatabase.bind(values.1, insert, 3)
                RawDatabase.bind(values.2, insert, 4)
                RawDatabase.bind(values.3, insert, 5)
                RawDatabase.bind(values.4, insert, 6)
                RawDatabase.bind(values.5, insert, 7)
                sqlite3_bind_int64(insert, 8, values.6)
                sqlite3_bind_double(insert, 9, values.7)
                guard sqlite3_step(insert) == SQLITE_DONE else { throw db.error() }
                sqlite3_reset(insert)
            }
            try db.exec("COMMIT")
        }.benchmarkMilliseconds
    }

    private func measureRawFetch(_ url: URL) throws -> Double {
        let db = try RawDatabase(url)
        defer { db.close() }
        let clock = ContinuousClock()
        var checksum = 0
        let elapsed = try clock.measure {
            let select = try db.prepare(
                "SELECT Z_PK, name, version, authors, homepage, license, summary, downloads, updated FROM Z_Pod ORDER BY Z_PK")
            defer { sqlite3_finalize(select) }
            var rows: [(Int64, String, String, String, String?, String?, String?, Int64, Double)] = []
            while sqlite3_step(select) == SQLITE_ROW {
                rows.append((sqlite3_column_int64(select, 0), RawDatabase.text(select, 1)!, RawDatabase.text(select, 2)!,
                    RawDatabase.text(select, 3)!, RawDatabase.text(select, 4), RawDatabase.text(select, 5),
                    RawDatabase.text(select, 6), sqlite3_column_int64(select, 7), sqlite3_column_double(select, 8)))
            }
            for row in rows {
                checksum &+= row.1.utf8.count &+ row.2.utf8.count &+ row.3.utf8.count &+ (row.4?.utf8.count ?? 0)
                checksum &+= (row.5?.utf8.count ?? 0) &+ (row.6?.utf8.count ?? 0) &+ Int(row.7) &+ Int(row.8)
            }
        }
        guard checksum != 0 else { throw CocoaError(.featureUnsupported) }
        return elapsed.benchmarkMilliseconds
    }

    /// Medians per measurement with the stack-to-raw ratios and the targets.
    public static func table(_ samples: [Sample], objects: Int) -> String {
        func median(_ values: [Double]) -> Double { values.median ?? 0 }
        let save = (median(samples.map(\.stackSave)), median(samples.map(\.rawSave)))
        let fetch = (median(samples.map(\.stackFetch)), median(samples.map(\.rawFetch)))
        var lines = ["SQLite \(SQLiteEngine.version), \(objects) pods, \(samples.count) repetitions (medians)",
            "operation  stack_ms   raw_ms  stack_us_per_row  raw_us_per_row  ratio  target"]
        for (name, (stack, raw), target) in [("save", save, 2.0), ("fetch", fetch, 2.5)] {
            let perRow = 1000 / Double(objects)
            lines.append(String(format: "%-9@  %8.1f  %7.1f  %16.2f  %14.2f  %5.2f  <= %.1fx %@", name as NSString, stack, raw,
                stack * perRow, raw * perRow, stack / raw, target, (stack / raw <= target ? "met" : "MISSED") as NSString))
        }
        lines.append(String(format: "store alone (no context): save %.1f ms (%.2fx raw), fetch %.1f ms (%.2fx raw)",
            median(samples.map(\.storeSave)), median(samples.map(\.storeSave)) / save.1,
            median(samples.map(\.storeFetch)), median(samples.map(\.storeFetch)) / fetch.1))
        lines.append("per repetition (stack/raw ms): " + samples.map {
            String(format: "save %.0f/%.0f fetch %.0f/%.0f", $0.stackSave, $0.rawSave, $0.stackFetch, $0.rawFetch)
        }.joined(separator: "; "))
        return lines.joined(separator: "\n")
    }
}

extension Duration {
    fileprivate var benchmarkMilliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}

/// A bare connection for the raw side of the benchmark.
private final class RawDatabase {
    let handle: OpaquePointer

    init(_ url: URL) throws {
        var pointer: OpaquePointer?
        guard sqlite3_open_v2(url.path, &pointer, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK, let pointer else {
            sqlite3_close_v2(pointer)
            throw StoreError(code: .ioFailure, message: "cannot open the raw benchmark file", url: url)
        }
        handle = pointer
        try exec("PRAGMA journal_mode = WAL")
        try exec("PRAGMA synchronous = NORMAL")
    }

    func close() { sqlite3_close_v2(handle) }

    func exec(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw error() }
    }

    func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else { throw error() }
        return statement
    }

    func error() -> StoreError {
        StoreError(code: .ioFailure, message: String(cString: sqlite3_errmsg(handle)))
    }

    static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    static func bind(_ text: String?, _ statement: OpaquePointer, _ index: Int32) {
        guard let text else {
            sqlite3_bind_null(statement, index)
            return
        }
        sqlite3_bind_text(statement, index, text, -1, transient)
    }

    static func text(_ statement: OpaquePointer, _ column: Int32) -> String? {
        guard let pointer = sqlite3_column_text(statement, column) else { return nil }
        return String(cString: pointer)
    }
}
