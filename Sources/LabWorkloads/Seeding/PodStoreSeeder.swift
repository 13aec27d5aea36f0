import Foundation
import LabCore
import ObjectStack
import ObjectStackLMDB
import ObjectStackSQLite

/// Builds a store of N pods of one version of the pod model, the same pods for the same seed: the stores that
/// startup and migration runs open.
///
/// For example:
/// ```swift
/// let report = try PodStoreSeeder(store: .sqlite, objects: 100_000, modelVersion: 1, url: url).run()
/// print(report.summary)
/// ```
/// Rows are written at the store level (`StoreSaveRequest`, no contexts or objects), one write transaction per
/// batch, so a million pods take seconds rather than minutes.
public struct PodStoreSeeder: Sendable {
    /// What was built.
    public struct Report: Sendable {
        public var store: StoreKind
        public var url: URL
        public var objects: Int
        public var modelVersion: Int
        public var seed: UInt64
        public var seconds: Double
        public var bytesOnDisk: Int

        /// One line for the terminal.
        public var summary: String {
            let megabytes = String(format: "%.1f", Double(bytesOnDisk) / 1_048_576)
            let rate = seconds > 0 ? Int(Double(objects) / seconds) : 0
            return "seeded \(objects) Pod objects (pod model version \(modelVersion), seed \(seed)) into \(url.path) "
                + "(\(store.name)): \(megabytes) MB in \(String(format: "%.2f", seconds)) s (\(rate) objects/s)"
        }
    }

    public var store: StoreKind
    public var objects: Int
    public var modelVersion: Int
    public var url: URL
    public var seed: UInt64
    public var batchSize: Int
    /// Whether an existing store at `url` is replaced; otherwise an existing file is an error.
    public var replacesExisting: Bool

    /// Creates a seeder.
    public init(
        store: StoreKind, objects: Int, modelVersion: Int, url: URL, seed: UInt64 = 42, batchSize: Int = 10_000,
        replacesExisting: Bool = false
    ) {
        self.store = store
        self.objects = objects
        self.modelVersion = modelVersion
        self.url = url
        self.seed = seed
        self.batchSize = max(1, batchSize)
        self.replacesExisting = replacesExisting
    }

    /// Builds the store.
    /// - Throws: `ObjectStackError(.invalidArgument)` for a bad count or model version or an existing file
    ///   (without `replacesExisting`); the stores' errors otherwise.
    public func run() throws -> Report {
        guard objects >= 0 else {
            throw ObjectStackError(
                code: .invalidArgument, message: "the object count must not be negative, not \(objects)")
        }
        let model = try PodModel.make(version: modelVersion)
        if FileManager.default.fileExists(atPath: url.path) {
            guard replacesExisting else {
                throw ObjectStackError(
                    code: .invalidArgument,
                    message: "\(url.path) already exists; remove it or pass --force to replace it")
            }
            try store.storeType.destroyStore(at: url)
        }
        let clock = SystemClock()
        let start = clock.nowMilliseconds()
        let coordinator = try LabStack.openCoordinator(store: store, at: url, model: model)
        let opened = coordinator.persistentStores[0]
        defer { try? coordinator.remove(opened) }
        guard let entity = model.entitiesByName["Pod"] else {
            throw ObjectStackError(code: .invalidArgument, message: "the pod model has no Pod entity")
        }
        var generator = PodGenerator(seed: seed, entity: entity)
        var written = 0
        while written < objects {
            let count = min(batchSize, objects - written)
            let ids = try opened.newObjectIDs(for: entity, count: count)
            var save = StoreSaveRequest()
            save.inserts.reserveCapacity(count)
            for (offset, id) in ids.enumerated() {
                save.inserts.append((id, generator.values(number: written + offset)))
            }
            _ = try opened.execute(save)
            written += count
        }
        try coordinator.remove(opened)
        let seconds = clock.milliseconds(since: start) / 1_000
        let files = ([url.path] + ["-wal", "-shm", "-lock"].map { url.path + $0 })
        let bytes = files.compactMap { try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? NSNumber }
            .reduce(0) { $0 + $1.intValue }
        return Report(
            store: store, url: url, objects: objects, modelVersion: modelVersion, seed: seed, seconds: seconds,
            bytesOnDisk: bytes)
    }
}

/// The values of the n-th seeded pod: deterministic for a seed, varied enough that indexes and text columns
/// look like a real catalogue.
struct PodGenerator {
    private var random: SplitMix64
    private let storedNames: [String]

    private static let licenses = ["MIT", "Apache-2.0", "BSD-3-Clause", "BSD-2-Clause", "ISC", "Zlib", nil as String?]
    private static let words = [
        "fast", "swift", "network", "image", "cache", "layout", "json", "crypto", "charts",
        "animation", "logging", "keychain", "markdown", "audio", "maps", "sqlite",
    ]

    init(seed: UInt64, entity: EntityDescription) {
        random = SplitMix64(seed: seed)
        storedNames = entity.storedProperties.map(\.name)
    }

    mutating func values(number: Int) -> [StoreValue] {
        let bits = random.next()
        let word = Self.words[Int(bits % UInt64(Self.words.count))]
        let other = Self.words[Int((bits >> 8) % UInt64(Self.words.count))]
        let name = "\(word.capitalized)\(other.capitalized)\(number)"
        return storedNames.map { property in
            switch property {
            case "name": return .string(name)
            case "version": return .string("\(bits >> 60).\((bits >> 52) % 16).\((bits >> 44) % 32)")
            case "authors": return .string("Author \((bits >> 16) % 5_000)")
            case "homepage": return bits & 7 == 0 ? .null : .string("https://github.com/pods/\(name)")
            case "license":
                return Self.licenses[Int((bits >> 24) % UInt64(Self.licenses.count))].map(StoreValue.string) ?? .null
            case "summary", "tagline": return .string("A \(word) \(other) library for iOS, number \(number).")
            case "downloads": return .integer(Int64((bits >> 32) % 10_000_000))
            case "updated": return .double(1_500_000_000 + Double((bits >> 20) % 200_000_000))
            case "stars": return .integer(Int64((bits >> 40) % 50_000))
            default: return .null
            }
        }
    }
}
