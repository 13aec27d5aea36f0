import Foundation
import Synchronization

extension StoreType {
    /// A store that keeps its rows in memory. Stores opened on the same `memory://NAME` URL share one backing
    /// for as long as one of them is open; any other URL gets a private backing.
    public static let inMemory = StoreType(name: "InMemory") { request in try InMemoryStore(request) }
}

/// A persistent store whose rows live in memory, with the same semantics as the file stores.
///
/// Saves are atomic and isolated; uniqueness constraints and row versions are checked inside the save.
/// - Note: Thread-safe: the backing's lock serialises saves, and fetches work on a consistent copy.
public final class InMemoryStore: PersistentStore, StoreQueryExplaining {
    public let url: URL
    public let configurationName: String?
    public let metadata: StoreMetadata
    public var type: StoreType { .inMemory }
    public var identifier: String { metadata.identifier }

    let model: ManagedObjectModel
    let entities: [String: EntityDescription]
    /// What the planner may use for each entity, by name.
    let queryIndexes: [String: [QueryIndex]]
    /// The ordered indexes a save maintains for each entity's rows, by name.
    let orderedIndexes: [String: [QueryIndex]]
    let backing: InMemoryBacking
    private let isClosed = Atomic<Bool>(false)
    /// Whether saves write persistent history (the store was opened with the `persistentHistoryTracking` option).
    public let tracksHistory: Bool

    /// Opens (or creates) the store described by `request`.
    /// - Throws: `StoreError.incompatibleModel` when the shared backing was written with another model.
    public init(_ request: StoreOpenRequest) throws {
        url = request.url
        configurationName = request.configurationName
        model = request.model
        entities = Dictionary(uniqueKeysWithValues: request.entities.map { ($0.name, $0) })
        let queryIndexes = Dictionary(
            uniqueKeysWithValues: request.entities.map { ($0.name, QueryIndex.indexes(of: $0)) })
        self.queryIndexes = queryIndexes
        orderedIndexes = queryIndexes.mapValues { $0.filter { $0.kind != .reference } }
        backing = InMemoryBacking.backing(for: request.url)
        tracksHistory = request.tracksHistory
        let hashes = Dictionary(uniqueKeysWithValues: request.entities.map { ($0.name, $0.versionHash) })
        let url = request.url
        metadata = try backing.state.withLock { state in
            if let existing = state.metadata {
                let differing = Set(existing.entityVersionHashes.keys).union(hashes.keys)
                    .filter { existing.entityVersionHashes[$0] != hashes[$0] }.sorted()
                guard differing.isEmpty else {
                    throw StoreError(
                        code: .incompatibleModel,
                        message:
                            "the store was written with another model; entities that differ: \(differing.joined(separator: ", "))",
                        url: url)
                }
                return existing
            }
            let created = StoreMetadata(
                identifier: UUID().uuidString, storeType: "InMemory", entityVersionHashes: hashes)
            state.metadata = created
            return created
        }
    }

    public func close() {
        isClosed.store(true, ordering: .releasing)
    }

    func checkOpen() throws {
        if isClosed.load(ordering: .acquiring) {
            throw StoreError(code: .closed, message: "the store was removed from its coordinator", url: url)
        }
    }

    // MARK: - Reading

    public func execute(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        try run(request).0
    }

    /// Runs a fetch and returns the plan it used, with the index entries and rows it read.
    public func explain(_ request: StoreFetchRequest) throws -> QueryPlan {
        try run(request).1
    }

    private func run(_ request: StoreFetchRequest) throws -> (StoreFetchResult, QueryPlan) {
        try checkOpen()
        let state = backing.state.withLock { $0 }
        let resolver = InMemoryResolver(state: state, entities: entities, storeIdentifier: identifier)
        return try InMemoryFetch(request: request, resolver: resolver, indexes: queryIndexes[request.entity.name] ?? [])
            .run()
    }

    public func snapshots(for objectIDs: [ManagedObjectID]) throws -> [RowSnapshot?] {
        try checkOpen()
        return backing.state.withLock { state in objectIDs.map { Self.snapshot(of: $0, in: state) } }
    }

    /// One object's row, without the batch's arrays.
    public func snapshot(for objectID: ManagedObjectID) throws -> RowSnapshot? {
        try checkOpen()
        return backing.state.withLock { Self.snapshot(of: objectID, in: $0) }
    }

    static func snapshot(of id: ManagedObjectID, in state: InMemoryBacking.State) -> RowSnapshot? {
        guard !id.isTemporaryID, let row = state.tables[id.entity.rootEntity.name]?.row(id.key),
            row.entityName == id.entityName
        else { return nil }
        return row.snapshot
    }

    public func relatedObjectIDs(of objectIDs: [ManagedObjectID], through relationship: RelationshipDescription) throws
        -> [[ManagedObjectID]]
    {
        try checkOpen()
        let state = backing.state.withLock { $0 }
        let resolver = InMemoryResolver(state: state, entities: entities, storeIdentifier: identifier)
        return objectIDs.map { resolver.related($0, through: relationship) }
    }

    // MARK: - Writing

    public func newObjectIDs(for entity: EntityDescription, count: Int) throws -> [ManagedObjectID] {
        try checkOpen()
        let root = entity.rootEntity.name
        let first = backing.state.withLock { state in
            let first = state.tables[root, default: InMemoryBacking.Table()].lastKey + 1
            state.tables[root, default: InMemoryBacking.Table()].lastKey += Int64(count)
            return first
        }
        return (0..<Int64(count)).map {
            ManagedObjectID(entity: entity, storeIdentifier: identifier, primaryKey: first + $0)
        }
    }

    public func execute(_ request: StoreSaveRequest) throws -> [ManagedObjectID: Int64] {
        try checkOpen()
        let url = self.url
        let orderedIndexes = orderedIndexes
        let tracksHistory = tracksHistory
        return try backing.state.withLock { state in
            let save = InMemorySave(request: request, url: url, orderedIndexes: orderedIndexes)
            try save.validate(against: state)
            let versions = save.apply(to: &state)
            if tracksHistory, let record = request.history { state.history.append(record) }
            backing.writeCount.withLock { $0 &+= 1 }
            return versions
        }
    }
}
