import CLMDB
import Foundation
import ObjectStack
import Synchronization

extension StoreType {
    /// A store in one LMDB file (plus its `-lock` file), at a file URL.
    public static let lmdb = StoreType(name: "LMDB", fileOperations: LMDBStore.fileOperations) { try LMDBStore($0) }
}

/// A persistent store over LMDB: one memory-mapped file, MVCC readers, one writer at a time.
///
/// For example:
/// ```swift
/// let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
/// try coordinator.addPersistentStore(type: .lmdb, at: URL(fileURLWithPath: "/tmp/pods.lmdb"))
/// ```
/// Fetches run in read-only transactions and never wait for a save; each save is one write transaction
/// with its version and uniqueness checks inside, so it lands whole or not at all. Stores opened on the same
/// file in one process share one `MDB_env`. Options: `"mapSize"`, the initial map size in bytes (the map
/// grows on demand); `"durability"`: `"full"` (the default: each commit synced), `"normal"` (`MDB_NOMETASYNC`: a
/// power cut may lose the last commit) or `"off"` (`MDB_NOSYNC`), as `Durability` describes. The environment shared
/// by this process's stores on one file keeps the strongest durability any of them asked for.
/// - Note: Thread-safe: separate coordinators may use separate instances on one file in parallel.
public final class LMDBStore: PersistentStore, StoreQueryExplaining, StoreRowStreaming {
    public let url: URL
    public let configurationName: String?
    public let metadata: StoreMetadata
    public var type: StoreType { .lmdb }
    public var identifier: String { metadata.identifier }

    let environment: LMDBEnvironment
    let schema: LMDBSchema
    let codec: LMDBRowCodec
    private let isClosed = Atomic<Bool>(false)
    /// Whether saves and batch requests write persistent history (the `persistentHistoryTracking` option).
    public let tracksHistory: Bool
    /// Where the store's persistent history lives.
    let history: LMDBHistory
    /// How many fetches took their candidates from an index range rather than a scan (for tests and probes).
    let indexScanCount = Atomic<Int>(0)

    /// The map size a new environment starts with: small, since it grows when a save fills it.
    public static let defaultInitialMapSize = 1 << 20

    /// Opens (or creates) the store described by `request`.
    /// - Throws: `StoreError`: `.notAStore` for a directory or a file that is not an LMDB store, `.corrupt` for
    ///   a truncated or damaged file, `.incompatibleModel` for a store of another model (naming the entities
    ///   that differ), `.ioFailure`/`.readOnly` when the file cannot be opened. A failed open changes nothing.
    public init(_ request: StoreOpenRequest) throws {
        guard request.url.isFileURL else {
            throw StoreError(
                code: .invalidOption, message: "an LMDB store needs a file URL, not \(request.url)",
                url: request.url)
        }
        var initialMapSize = Self.defaultInitialMapSize
        if let text = request.options["mapSize"] {
            guard let size = Int(text), size >= 64 * 1024 else {
                throw StoreError(
                    code: .invalidOption, message: "mapSize must be a byte count of at least 65536, not \(text)",
                    url: request.url)
            }
            initialMapSize = size
        }
        let durability = try Durability.requested(in: request.options, url: request.url) ?? .full
        let environment = try LMDBEnvironmentRegistry.acquire(
            url: request.url, initialMapSize: initialMapSize, durability: durability)
        do {
            let opened = try LMDBStoreOpening(request: request, environment: environment).open()
            self.metadata = opened.metadata
            self.schema = opened.schema
            self.codec = opened.codec
            self.history = try LMDBHistory.open(
                environment, meta: opened.schema.meta, create: request.tracksHistory, url: request.url)
        } catch {
            LMDBEnvironmentRegistry.release(environment)
            throw error
        }
        self.environment = environment
        self.tracksHistory = request.tracksHistory
        self.url = request.url
        self.configurationName = request.configurationName
    }

    deinit {
        if !isClosed.exchange(true, ordering: .acquiringAndReleasing) { LMDBEnvironmentRegistry.release(environment) }
    }

    /// Ends the store's use of its file; the environment closes when no other store in the process uses it.
    public func close() {
        if !isClosed.exchange(true, ordering: .acquiringAndReleasing) { LMDBEnvironmentRegistry.release(environment) }
    }

    func checkOpen() throws {
        if isClosed.load(ordering: .acquiring) {
            throw StoreError(code: .closed, message: "the store was removed from its coordinator", url: url)
        }
    }

    /// What the store's commits promise across a power cut now (the environment's sync flags).
    public var durability: Durability { environment.durability }

    /// The current size of the store's memory map in bytes (it starts small and grows with the data).
    public var mapSize: Int { environment.mapSize }

    // MARK: - Reading

    public func execute(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        try checkOpen()
        return try run(request).0
    }

    /// Runs a fetch and returns the plan it used, with the index entries and rows it read.
    public func explain(_ request: StoreFetchRequest) throws -> QueryPlan {
        try checkOpen()
        return try run(request).1
    }

    /// Runs an object fetch as `execute(_:)` does, handing its rows over a chunk at a time.
    public func fetchObjects(
        _ request: StoreFetchRequest, inChunks body: ([(ManagedObjectID, RowSnapshot)], Int?) throws -> Void
    ) throws {
        try checkOpen()
        try withoutActuallyEscaping(body) { body in _ = try run(request, streaming: body) }
    }

    private func run(
        _ request: StoreFetchRequest, streaming: (([(ManagedObjectID, RowSnapshot)], Int?) throws -> Void)? = nil
    ) throws -> (StoreFetchResult, QueryPlan) {
        let (result, plan) = try environment.read { txn in
            try LMDBFetch(
                request: request, resolver: LMDBResolver(txn: txn, schema: schema, codec: codec), streaming: streaming
            ).run()
        }
        if case .index(_, let range) = plan.access {
            if case .all = range {} else { indexScanCount.add(1, ordering: .relaxed) }
        }
        return (result, plan)
    }

    public func snapshots(for objectIDs: [ManagedObjectID]) throws -> [RowSnapshot?] {
        try checkOpen()
        return try environment.read { txn in try objectIDs.map { try row(of: $0, in: txn) } }
    }

    /// One object's row, read in its own transaction without the batch's arrays.
    public func snapshot(for objectID: ManagedObjectID) throws -> RowSnapshot? {
        try checkOpen()
        return try environment.read { txn in try row(of: objectID, in: txn) }
    }

    func row(of id: ManagedObjectID, in txn: LMDBTransaction) throws -> RowSnapshot? {
        guard !id.isTemporaryID, let layout = schema.layout(of: id.entity),
            let bytes = try txn.get(layout.rows, primaryKey: id.key)
        else { return nil }
        let header = try codec.header(of: bytes)
        guard header.entityCode == codec.code(of: id.entity) else { return nil }
        return RowSnapshot(values: try codec.decodeAll(bytes, header: header), version: header.version)
    }

    public func relatedObjectIDs(of objectIDs: [ManagedObjectID], through relationship: RelationshipDescription) throws
        -> [[ManagedObjectID]]
    {
        try checkOpen()
        return try environment.read { txn in
            let resolver = LMDBResolver(txn: txn, schema: schema, codec: codec)
            return try objectIDs.map { try resolver.related($0, through: relationship) }
        }
    }

    // MARK: - Writing

    /// New IDs at keys reserved in the file (`LMDBStore+Keys`), so no other process is given the same ones.
    public func newObjectIDs(for entity: EntityDescription, count: Int) throws -> [ManagedObjectID] {
        try checkOpen()
        guard count > 0 else { return [] }
        let first = try takeKeys(for: entity, count: count)
        return (0..<Int64(count)).map {
            ManagedObjectID(entity: entity, storeIdentifier: identifier, primaryKey: first + $0)
        }
    }

    public func execute(_ request: StoreSaveRequest) throws -> [ManagedObjectID: Int64] {
        try checkOpen()
        if request.isEmpty { return [:] }
        let save = LMDBSave(request: request, schema: schema, codec: codec, url: url)
        // A rough size of what the save writes (rows, index entries, page overhead), so one growth fits it.
        let rowBytes = (request.inserts.first?.values.count ?? request.updates.first?.values.count ?? 8) * 24 + 64
        let hint = (request.inserts.count + request.updates.count) * rowBytes * 3
        let history = tracksHistory ? request.history : nil
        return try environment.write(growthHint: hint) { txn in
            let versions = try save.run(txn)
            // The history of the save, in its transaction: a kill leaves both or neither.
            if let history { try self.history.append(history, txn) }
            return versions
        }
    }
}
