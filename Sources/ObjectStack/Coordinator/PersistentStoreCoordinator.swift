import Dispatch
import Foundation

/// Connects contexts to stores: it opens stores, routes each request to the store that holds the entity,
/// serialises access to its stores, and keeps the row cache every context on it shares.
///
/// For example:
/// ```swift
/// let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
/// try coordinator.addPersistentStore(type: .inMemory, at: URL(string: "memory://main")!)
/// let context = ManagedObjectContext(concurrencyType: .privateQueue)
/// context.persistentStoreCoordinator = coordinator
/// ```
/// - Note: Thread-safe. Every store request takes the coordinator's lock, so contexts that share a
///   coordinator wait for each other's store work (the "shared coordinator" stack design).
public final class PersistentStoreCoordinator: Sendable {
    /// The model every store of the coordinator holds.
    public let managedObjectModel: ManagedObjectModel
    private let stores = LockedValue<[any PersistentStore]>([])
    /// The stores with their identities, for reads by object ID: changed and read only under `storeAccess`, so
    /// such a read takes that one lock and compares identities, not the stores' identifier strings (the list's
    /// own lock and the comparisons were a fortieth of an `existingObject(with:)`).
    nonisolated(unsafe) private var routes: [(identity: StoreIdentity, store: any PersistentStore)] = []
    let rowCache: LockedValue<RowCache>
    /// The row cache's change counter, read without its lock.
    let rowCacheGeneration: RowCacheGeneration
    let mergingContexts = LockedValue<[WeakContext]>([])
    /// The watchers of stores added with remote change notifications on, by store.
    let remoteChangeWatchers = LockedValue<[ObjectIdentifier: RemoteChangeWatcher]>([:])

    /// Creates a coordinator with no stores.
    public init(managedObjectModel: ManagedObjectModel) {
        self.managedObjectModel = managedObjectModel
        let cache = RowCache()
        rowCacheGeneration = cache.generation
        rowCache = LockedValue(cache)
    }

    // MARK: - Stores

    /// The stores added so far.
    public var persistentStores: [any PersistentStore] {
        stores.withLock { $0 }
    }

    /// Opens a store and adds it.
    ///
    /// For example:
    /// ```swift
    /// let store = try coordinator.addPersistentStore(type: .sqlite, at: url, options: ["synchronous": "FULL"])
    /// ```
    /// - Parameters:
    ///   - type: the store type (`.inMemory`; `.sqlite` and `.lmdb` with their modules).
    ///   - configuration: the model configuration the store holds, or nil for every entity.
    ///   - url: the store's file, or a `memory://NAME` URL for the in-memory store.
    ///   - options: store options by name (for SQLite `synchronous`, for example).
    /// - Returns: the store, open and added.
    /// - Throws: `StoreError` when the store cannot be opened or was written with another model.
    @discardableResult
    public func addPersistentStore(
        type: StoreType, configuration: String? = nil, at url: URL, options: [String: String] = [:]
    ) throws -> any PersistentStore {
        if let configuration, managedObjectModel.configurations[configuration] == nil {
            throw StoreError(
                code: .invalidOption, message: "the model has no configuration named \(configuration)", url: url)
        }
        let store = try type.open(
            StoreOpenRequest(
                model: managedObjectModel, configurationName: configuration, url: url, options: options))
        stores.withLock { $0.append(store) }
        withStoreAccess { routes.append((StoreIdentity.interned(store.identifier), store)) }
        watchForRemoteChanges(store, options: options)
        return store
    }

    /// Opens a store on a background queue and calls back there when it is added or has failed.
    ///
    /// The caller's thread is free at once: this is how a launch keeps a slow store open (or a migration)
    /// off the main thread.
    public func addPersistentStore(
        type: StoreType, configuration: String? = nil, at url: URL, options: [String: String] = [:],
        completionHandler: @escaping @Sendable (Result<any PersistentStore, any Error>) -> Void
    ) {
        DispatchQueue.global(qos: .userInitiated).async {
            completionHandler(
                Result {
                    try self.addPersistentStore(type: type, configuration: configuration, at: url, options: options)
                })
        }
    }

    /// Removes a store; its objects can no longer be fetched or saved through this coordinator.
    public func remove(_ store: any PersistentStore) throws {
        let removed = stores.withLock { stores in
            guard let index = stores.firstIndex(where: { $0 === store }) else { return false }
            stores.remove(at: index)
            return true
        }
        guard removed else {
            throw StoreError(
                code: .invalidOption, message: "the store is not one of this coordinator's", url: store.url)
        }
        withStoreAccess { routes.removeAll { $0.store === store } }
        stopWatching(store)
        store.close()
    }

    /// The metadata of one of the coordinator's stores.
    public func metadata(for store: any PersistentStore) -> StoreMetadata {
        store.metadata
    }

    /// The ID a URI from `ManagedObjectID.uriRepresentation()` names, or nil if no store here holds it.
    ///
    /// Core Data's URIs (`x-coredata://STORE/Entity/pKEY`) name the same objects in a store Core Data wrote; the
    /// `x-objectstack` scheme of earlier ObjectStack versions is still read.
    public func managedObjectID(forURIRepresentation uri: URL) -> ManagedObjectID? {
        guard uri.scheme == "x-coredata" || uri.scheme == "x-objectstack", let storeIdentifier = uri.host,
            !storeIdentifier.isEmpty
        else {
            return nil
        }
        let parts = uri.path.split(separator: "/").map(String.init)
        guard parts.count == 2, parts[1].hasPrefix("p"), let key = Int64(parts[1].dropFirst()),
            let entity = managedObjectModel.entitiesByName[parts[0]],
            persistentStores.contains(where: { $0.identifier == storeIdentifier })
        else { return nil }
        return ManagedObjectID(entity: entity, storeIdentifier: storeIdentifier, primaryKey: key)
    }

    /// The number of rows in the row cache (for diagnostics: it follows what contexts hold).
    public var cachedRowCount: Int {
        rowCache.withLock { $0.count }
    }

    // MARK: - Requests from contexts

    /// The store that holds an entity's objects: the first store whose configuration includes it.
    func store(for entity: EntityDescription) throws -> any PersistentStore {
        let found = stores.withLock { stores in
            stores.first { store in
                guard let configuration = store.configurationName else { return true }
                return managedObjectModel.configurations[configuration]?.contains(entity.name) ?? false
            }
        }
        guard let found else {
            throw StoreError(code: .unsupported, message: "no store of the coordinator holds entity \(entity.name)")
        }
        return found
    }

    private func store(for id: ManagedObjectID) throws -> any PersistentStore {
        if let found = stores.withLock({ $0.first { $0.identifier == id.storeIdentifier } }) { return found }
        throw StoreError(code: .closed, message: "the store holding \(id) is not added to this coordinator")
    }

    /// The store holding an object, found by its identity; call it inside `withStoreAccess`. A store whose
    /// identifier is not the one it was added with is still found, by its identifier.
    private func routedStore(for id: ManagedObjectID) throws -> any PersistentStore {
        for route in routes where route.identity === id.store { return route.store }
        return try store(for: id)
    }

    /// Runs store work under the coordinator's lock, so one coordinator's stores see one request at a time.
    func withStoreAccess<T>(_ body: () throws -> T) rethrows -> T {
        storeAccess.lock()
        defer { storeAccess.unlock() }
        return try body()
    }
    // A bare lock, not a LockedValue<Void>: ThreadSanitizer reports the inout access to a zero-sized value
    // at the box's address as a race with the threads reading the box to take its lock.
    private let storeAccess = NSLock()

    /// Runs a fetch on the entity's store and caches the rows it returns, unless the caller caches them itself
    /// (`cachingRows` false: a context that registers the objects stores and retains each row in one step).
    func execute(_ request: StoreFetchRequest, cachingRows: Bool = true) throws -> StoreFetchResult {
        let store = try store(for: request.entity)
        let result = try withStoreAccess { try store.execute(request) }
        if cachingRows, case .objects(let rows) = result {
            rowCache.withLock { $0.store(rows) }
        }
        return result
    }

    /// Runs an object fetch on the entity's store a chunk of rows at a time, when the store streams
    /// (`StoreRowStreaming`); the caller caches the rows. False, and nothing run, when the store does not stream.
    func fetchObjects(
        _ request: StoreFetchRequest, inChunks body: ([(ManagedObjectID, RowSnapshot)], Int?) throws -> Void
    ) throws -> Bool {
        guard let store = try store(for: request.entity) as? any StoreRowStreaming else { return false }
        try withStoreAccess { try store.fetchObjects(request, inChunks: body) }
        return true
    }

    /// The plan the entity's store uses for a fetch, with what it read.
    func explain(_ request: StoreFetchRequest) throws -> QueryPlan {
        let store = try store(for: request.entity)
        guard let explaining = store as? any StoreQueryExplaining else {
            throw ObjectStackError(
                code: .invalidArgument,
                message: "the \(store.type) store does not explain its fetch plans (SQLite: use EXPLAIN QUERY PLAN)")
        }
        return try withStoreAccess { try explaining.explain(request) }
    }

    /// The row of an object: from the cache, or the store on a miss (then cached).
    func snapshot(for id: ManagedObjectID, maximumAge: Double? = nil) throws -> RowSnapshot? {
        if let cached = rowCache.withLock({ $0.snapshot(for: id, maximumAge: maximumAge) }) { return cached }
        return try readRow(id, references: 0)
    }

    /// The row of an object a context is about to register, with the context's hold on it counted in the same
    /// step: from the cache, or the store on a miss (then cached). Nil, and nothing counted, when the row is gone.
    func retainedSnapshot(for id: ManagedObjectID, maximumAge: Double?) throws -> RowSnapshot? {
        if let cached = rowCache.withLock({ $0.retainedSnapshot(for: id, maximumAge: maximumAge) }) { return cached }
        return try readRow(id, references: 1)
    }

    /// One object's row read from its store (the single-row read, not the batch's) and cached with `references`
    /// holders counted; a row that is gone leaves the cache.
    private func readRow(_ id: ManagedObjectID, references: Int) throws -> RowSnapshot? {
        let row = try withStoreAccess { try routedStore(for: id).snapshot(for: id) }
        rowCache.withLock { cache in
            if let row { cache.store(row, for: id, at: .now, references: references) } else { cache.remove(id) }
        }
        return row
    }

    /// Rows read from the store, bypassing the cache, then cached.
    func freshSnapshots(for ids: [ManagedObjectID]) throws -> [RowSnapshot?] {
        guard let first = ids.first else { return [] }
        let rows = try withStoreAccess { try routedStore(for: first).snapshots(for: ids) }
        rowCache.withLock { cache in
            for (id, row) in zip(ids, rows) {
                if let row { cache.store(row, for: id) } else { cache.remove(id) }
            }
        }
        return rows
    }

    /// The members of a to-many relationship in the store, for each object (none for a temporary ID).
    func relatedObjectIDs(of ids: [ManagedObjectID], through relationship: RelationshipDescription) throws
        -> [[ManagedObjectID]]
    {
        let saved = ids.filter { !$0.isTemporaryID }
        guard let first = saved.first else { return ids.map { _ in [] } }
        let found = try withStoreAccess {
            try routedStore(for: first).relatedObjectIDs(of: saved, through: relationship)
        }
        let byID = Dictionary(zip(saved, found), uniquingKeysWith: { a, _ in a })
        return ids.map { byID[$0] ?? [] }
    }

    /// Reserves permanent IDs for new objects, entity by entity.
    func newObjectIDs(for entity: EntityDescription, count: Int) throws -> [ManagedObjectID] {
        let store = try store(for: entity)
        return try withStoreAccess { try store.newObjectIDs(for: entity, count: count) }
    }

    /// Saves atomically and updates the row cache with the rows written.
    /// - Returns: the row written for each insert, then for each update, in the request's order.
    /// - Parameters:
    ///   - author: who saves, for the store's persistent history (when it keeps one).
    ///   - committedValues: the values a deleted object's row had, for its history tombstone.
    func execute(
        _ request: StoreSaveRequest, author: HistoryAuthor? = nil,
        committedValues: (ManagedObjectID) -> [StoreValue]? = { _ in nil }
    ) throws -> [RowSnapshot] {
        guard !request.isEmpty else { return [] }
        let anyID =
            request.inserts.first?.objectID ?? request.updates.first?.objectID ?? request.deletes.first?.objectID
            ?? request.insertedLinks.first?.source ?? request.deletedLinks.first?.source
        // A save reaches one store; a request spanning several stores would need two-phase commit.
        let store = try anyID.map { try self.store(for: $0) } ?? persistentStores[0]
        var request = request
        request.history = historyRecord(for: request, to: store, by: author, committedValues: committedValues)
        let versions = try withStoreAccess { [request] in try store.execute(request) }
        didWrite(to: store)
        // The rows are in the request's order rather than a table by ID: the saving context pairs them with
        // its objects by position, so no row is hashed on the way back. The request's entries are read field by
        // field: copying each whole entry out retained and released every field of it.
        var written: [RowSnapshot] = []
        written.reserveCapacity(request.inserts.count + request.updates.count)
        for index in request.inserts.indices {
            written.append(RowSnapshot(values: request.inserts[index].values, version: 1))
        }
        for index in request.updates.indices {
            // A checked update's row is one past the version it was read at (the store refused any other); a
            // store reports only the versions of unchecked ones.
            let version =
                request.updates[index].expectedVersion.map { $0 + 1 } ?? versions[request.updates[index].objectID]
                ?? 1
            written.append(RowSnapshot(values: request.updates[index].values, version: version))
        }
        rowCache.withLock { cache in
            // Updated rows are in the cache already (their objects hold them): room is made for the new ones.
            cache.reserveCapacity(request.inserts.count)
            let now = RowCacheInstant.now
            // A new row is held by the saving context, which has its object registered.
            for index in request.inserts.indices {
                cache.store(written[index], for: request.inserts[index].objectID, at: now, references: 1)
            }
            let updatesStart = request.inserts.count
            for index in request.updates.indices {
                cache.store(written[updatesStart + index], for: request.updates[index].objectID, at: now)
            }
            for delete in request.deletes { cache.remove(delete.objectID) }
        }
        return written
    }
}
