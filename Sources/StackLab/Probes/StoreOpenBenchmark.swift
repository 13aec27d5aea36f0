import Foundation
import ObjectStack

/// Times how long a seeded store takes to become ready (`addPersistentStore`, no migration) at several sizes,
/// and how fast a migration copies rows (add-attribute: pod model 1 → 2; rename: 2 → 3), on SQLite and LMDB.
///
/// Store-ready time should not grow with the number of rows: an open reads metadata and a few pages, never the
/// data. Each size is seeded once; the opens are repeated on fresh coordinators in this process (warm page
/// cache), and the median and maximum are reported.
public struct StoreOpenBenchmark: Sendable {
    public var sizes: [Int]
    public var migrationObjects: Int
    public var repetitions: Int
    public var stores: [PodStoreSeeder.Store]
    public var directory: URL

    /// Creates the benchmark; stores are built in `directory` and removed afterwards.
    public init(sizes: [Int], migrationObjects: Int, repetitions: Int, stores: [PodStoreSeeder.Store], directory: URL) {
        self.sizes = sizes
        self.migrationObjects = migrationObjects
        self.repetitions = max(1, repetitions)
        self.stores = stores
        self.directory = directory
    }

    /// One open-time measurement.
    public struct OpenRow: Sendable {
        public var store: PodStoreSeeder.Store
        public var objects: Int
        public var firstMilliseconds: Double
        public var medianMilliseconds: Double
        public var maxMilliseconds: Double
    }

    /// One migration measurement.
    public struct MigrationRow: Sendable {
        public var store: PodStoreSeeder.Store
        public var kind: String
        public var rows: Int
        public var seconds: Double
    }

    /// Runs everything; `log` gets a line as each step starts.
    public func run(log: (String) -> Void) throws -> (opens: [OpenRow], migrations: [MigrationRow]) {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var opens: [OpenRow] = []
        var migrations: [MigrationRow] = []
        let model = try PodModel.make(version: 1)
        for store in stores {
            for size in sizes {
                let url = directory.appendingPathComponent("open-\(size).\(store.rawValue)")
                log("seeding \(size) pods (\(store.rawValue))")
                _ = try PodStoreSeeder(store: store, objects: size, modelVersion: 1, url: url, replacesExisting: true).run()
                var times: [Double] = []
                for _ in 0..<repetitions {
                    let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
                    let start = ContinuousClock.now
                    let opened = try coordinator.addPersistentStore(type: store.type, at: url)
                    times.append(PodStoreSeeder.seconds(ContinuousClock.now - start) * 1_000)
                    try coordinator.remove(opened)
                }
                opens.append(OpenRow(store: store, objects: size, firstMilliseconds: times[0],
                    medianMilliseconds: times.median ?? 0, maxMilliseconds: times.max() ?? 0))
                try store.type.destroyStore(at: url)
            }
            guard migrationObjects > 0 else { continue }
            let url = directory.appendingPathComponent("migrate-\(migrationObjects).\(store.rawValue)")
            log("seeding \(migrationObjects) pods for migration (\(store.rawValue))")
            _ = try PodStoreSeeder(store: store, objects: migrationObjects, modelVersion: 1, url: url, replacesExisting: true).run()
            for (kind, version) in [("add attribute (v1→v2)", 2), ("rename attribute (v2→v3)", 3)] {
                log("migrating: \(kind) (\(store.rawValue))")
                let result = try MigrationProbe(store: store, url: url, toVersion: version).run()
                migrations.append(MigrationRow(store: store, kind: kind, rows: result.rows, seconds: result.seconds))
            }
            try store.type.destroyStore(at: url)
        }
        return (opens, migrations)
    }

    /// The two tables, aligned.
    public static func table(opens: [OpenRow], migrations: [MigrationRow]) -> String {
        func cell(_ text: String, _ width: Int) -> String { String(repeating: " ", count: max(0, width - text.count)) + text }
        func ms(_ value: Double) -> String { String(format: "%.3f", value) }
        var lines = ["store-ready time of addPersistentStore (ms, no migration)",
            "store   " + cell("objects", 10) + cell("first", 10) + cell("median", 10) + cell("max", 10)]
        for row in opens {
            lines.append(row.store.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0) + cell("\(row.objects)", 10)
                + cell(ms(row.firstMilliseconds), 10) + cell(ms(row.medianMilliseconds), 10) + cell(ms(row.maxMilliseconds), 10))
        }
        if !migrations.isEmpty {
            lines += ["", "migration throughput",
                "store   " + "migration".padding(toLength: 26, withPad: " ", startingAt: 0) + cell("rows", 10)
                    + cell("seconds", 10) + cell("rows/s", 12)]
            for row in migrations {
                lines.append(row.store.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
                    + row.kind.padding(toLength: 26, withPad: " ", startingAt: 0) + cell("\(row.rows)", 10)
                    + cell(String(format: "%.2f", row.seconds), 10)
                    + cell("\(Int(row.seconds > 0 ? Double(row.rows) / row.seconds : 0))", 12))
            }
        }
        return lines.joined(separator: "\n")
    }
}
