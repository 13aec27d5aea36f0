import Foundation
import LabWorkloads
import ObjectStack
import ObjectStackLMDB
import ObjectStackSQLite

/// Pods through ObjectStack on one store: `Pod` objects in a private-queue context on a coordinator.
///
/// `reopen` builds a new coordinator and context on the file, so no row cache or registered object survives
/// into a measurement. Object IDs are kept by primary key across reopenings (the store's identifier is the
/// file's, so an ID stays valid for a new coordinator on the same file).
final class StackPods: PodEngine {
    private let url: URL
    private let store: StoreKind
    private let model: ManagedObjectModel
    private var coordinator: PersistentStoreCoordinator
    private(set) var context: ManagedObjectContext
    /// Object IDs by the primary key the raw sides use (the row's `id`, 1…N in insertion order).
    private var idsByKey: [Int64: ManagedObjectID] = [:]
    private var inserted: [(Int64, Pod)] = []
    private var lookupIDs: [ManagedObjectID] = []
    private var updating: [Pod] = []
    /// Count requests by threshold, built on first use.
    private var countRequests: [Int64: FetchRequest<Pod>] = [:]
    /// For an in-memory store: a coordinator that keeps the store open across `reopen`, so its backing (and
    /// the rows) outlive the measured coordinators.
    private var keeper: PersistentStoreCoordinator?
    /// The store options every coordinator here opens the store with.
    private let options: [String: String]

    /// Opens (creating) a store of kind `store` at `url`.
    /// - Parameters:
    ///   - history: whether the store keeps persistent history (each save also writes its transaction).
    ///   - durability: what a save promises across a power cut (nil: the store's default).
    init(store: StoreKind, url: URL, history: Bool = false, durability: Durability? = nil) throws {
        self.url = url
        self.store = store
        var description = StoreDescription(type: store.storeType, url: url)
        description.persistentHistoryTracking = history
        description.durability = durability
        options = description.options
        model = try PodModel.make()
        (coordinator, context) = try Self.open(store, url, model, options)
        if !store.isFile {
            keeper = try LabStack.openCoordinator(store: store, at: url, model: model, options: options)
        }
    }

    /// A coordinator and a private-queue context on it, opened the lab's one way (`LabStack`).
    private static func open(
        _ store: StoreKind, _ url: URL, _ model: ManagedObjectModel, _ options: [String: String]
    ) throws -> (PersistentStoreCoordinator, ManagedObjectContext) {
        let context = try LabStack.openContext(store: store, at: url, model: model, options: options)
        return (context.persistentStoreCoordinator!, context)
    }

    func close() {
        closeContext()
        for store in keeper?.persistentStores ?? [] { try? keeper?.remove(store) }
        keeper = nil
    }

    private func closeContext() {
        inserted = []
        updating = []
        context.performAndWait { context.reset() }
        for store in coordinator.persistentStores { try? coordinator.remove(store) }
    }

    func reopen() throws {
        indexInserted()
        updating = []
        closeContext()
        (coordinator, context) = try Self.open(store, url, model, options)
    }

    func insert(_ rows: [PodRow]) throws {
        let context = context
        inserted = try context.performAndWait {
            let pods = rows.map { row -> (Int64, Pod) in
                let pod = Pod(context: context)
                pod.set(row)
                return (row.id, pod)
            }
            try context.save()
            return pods
        }
    }

    func fetchAll() throws -> (held: Any, checksum: Int) {
        let context = context
        return try context.performAndWait {
            let pods = try context.fetch(FetchRequest<Pod>(entityName: "Pod"))
            return (pods, pods.reduce(0) { $0 &+ $1.row.checksum })
        }
    }

    func prepareLookups(_ keys: [Int64]) throws {
        lookupIDs = try keys.map(id)
    }

    func fetchByID() throws -> Int {
        let context = context
        return try context.performAndWait {
            try lookupIDs.reduce(0) { checksum, id in
                guard let pod = try context.existingObject(with: id) as? Pod else {
                    throw StoreError(code: .objectNotFound, message: "ObjectStack: \(id) is not a pod", url: url)
                }
                return checksum &+ pod.row.checksum
            }
        }
    }

    func fetchSorted(limit: Int) throws -> Int {
        let context = context
        return try context.performAndWait {
            var request = FetchRequest<Pod>(entityName: "Pod")
            request.sortDescriptors = [SortKey("name")]
            request.fetchLimit = limit
            return try context.fetch(request).reduce(0) { $0 &+ $1.row.checksum }
        }
    }

    func prepareUpdate(_ keys: [Int64]) throws {
        let context = context
        let ids = try keys.map(id)
        updating = try context.performAndWait {
            try ids.map { id in
                guard let pod = try context.existingObject(with: id) as? Pod else {
                    throw StoreError(code: .objectNotFound, message: "ObjectStack: \(id) is not a pod", url: url)
                }
                _ = pod.downloads  // materialised, as loaded records are
                return pod
            }
        }
    }

    func update(round: Int) throws {
        let context = context
        try context.performAndWait {
            for pod in updating {
                pod.downloads += 1
                pod.updated += 1
            }
            try context.save()
        }
    }

    func count(downloadsAbove downloads: Int64) throws -> Int {
        let context = context
        // The request is built once, as an app keeps a predicate it runs again: parsing the format string on
        // every call was a quarter of counting 1,000 pods, which measured the parser rather than the count.
        let request =
            try countRequests[downloads]
            ?? {
                var request = FetchRequest<Pod>(entityName: "Pod")
                request.predicate = try FetchPredicate(format: "downloads > %d", downloads)
                countRequests[downloads] = request
                return request
            }()
        return try context.performAndWait { try context.count(for: request) }
    }

    /// Keeps the saved pods' IDs by key and lets go of the pods.
    private func indexInserted() {
        for (key, pod) in inserted { idsByKey[key] = pod.objectID }
        inserted = []
    }

    private func id(_ key: Int64) throws -> ManagedObjectID {
        if !inserted.isEmpty { indexInserted() }
        guard let id = idsByKey[key] else {
            throw StoreError(
                code: .objectNotFound, message: "ObjectStack: no pod was inserted with key \(key)", url: url)
        }
        return id
    }

    // MARK: - Merging and importing (ObjectStack only)

    /// Registers the pods with keys 1…`registered` in the context, materialised (as a long list on screen holds
    /// them); the merges then arrive in this context.
    func register(_ registered: Int) throws {
        let context = context
        let ids = try (1...Int64(registered)).map(id)
        context.performAndWait {
            for id in ids { _ = (context.object(with: id) as? Pod)?.downloads }
        }
    }

    /// A background context on the same coordinator saves `changes` changes (half updates of registered pods
    /// spread over `registered`, half inserts); returns the time `mergeChanges(fromContextDidSave:)` takes
    /// in the registering context.
    func measureMerge(round: Int, changes: Int, registered: Int) throws -> Duration {
        let background = ManagedObjectContext(concurrencyType: .privateQueue)
        background.persistentStoreCoordinator = coordinator
        let ids = try updatedIDs(changes: changes, registered: registered)
        let updates = ids.count
        let box = NotificationBox()
        let token = NotificationCenter.default.addObserver(
            forName: ManagedObjectContext.didSaveNotification, object: background, queue: nil
        ) { box.store($0) }
        defer { NotificationCenter.default.removeObserver(token) }
        try background.performAndWait {
            for id in ids { (background.object(with: id) as? Pod)?.downloads += 1 }
            for index in 0..<(changes - updates) {
                Pod(context: background).set(PodRow.make(10_000_000 + round * changes + index))
            }
            try background.save()
        }
        guard let saved = box.notification else {
            throw StoreError(
                code: .ioFailure, message: "ObjectStack: the background save posted no notification", url: url)
        }
        let context = context
        let clock = ContinuousClock()
        return context.performAndWait { clock.measure { context.mergeChanges(fromContextDidSave: saved) } }
    }

    /// The registered pods a `changes`-object save updates: half the changes, spread over `registered`.
    private func updatedIDs(changes: Int, registered: Int) throws -> [ManagedObjectID] {
        let updates = changes / 2
        let stride = max(registered / max(updates, 1), 1)
        return try (0..<updates).map { try id(Int64(($0 * stride) % registered + 1)) }
    }

    /// A child context of the registering context saves `changes` changes into it (half updates of registered
    /// pods spread over `registered`, half inserts), the nested-contexts strategy's step; returns the time of the
    /// child's `save()`. The parent's context is rolled back afterwards, so every sample starts alike.
    func measureChildSave(round: Int, changes: Int, registered: Int) throws -> Duration {
        let context = context
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = context
        let ids = try updatedIDs(changes: changes, registered: registered)
        let updates = ids.count
        let clock = ContinuousClock()
        let duration = try child.performAndWait { () throws -> Duration in
            for id in ids { (child.object(with: id) as? Pod)?.downloads += 1 }
            for index in 0..<(changes - updates) {
                Pod(context: child).set(PodRow.make(20_000_000 + round * changes + index))
            }
            return try clock.measure { try child.save() }
        }
        let pending = context.performAndWait { () -> Int in
            let count = context.insertedObjects.count + context.updatedObjects.count
            context.rollback()
            return count
        }
        guard pending == changes else {
            throw StoreError(
                code: .ioFailure,
                message: "ObjectStack: the child's save left \(pending) changes in its parent, not \(changes)",
                url: url)
        }
        return duration
    }

    /// Imports `count` pods in saves of `batchSize`, resetting the context after each save so memory stays
    /// bounded by a batch, as an importer should.
    func importInBatches(_ count: Int, batchSize: Int) throws {
        let context = context
        try context.performAndWait {
            var start = 0
            while start < count {
                let end = min(start + batchSize, count)
                for index in start..<end { Pod(context: context).set(PodRow.make(index)) }
                try context.save()
                context.reset()
                start = end
            }
        }
    }

    // MARK: - Batch inserts (ObjectStack only)

    /// The dictionaries a `BatchInsertRequest` of `rows` takes, as an importer holds decoded JSON: keys for the
    /// values a pod has (none for nil), integers as `Int`.
    static func batchObjects(_ rows: [PodRow]) -> [[String: Any]] {
        rows.map(\.spec.batchInsertObject)
    }

    /// Inserts `objects` with one `BatchInsertRequest` on the context's queue.
    func batchInsert(_ objects: [[String: Any]]) throws {
        let context = context
        try context.performAndWait {
            _ = try context.execute(BatchInsertRequest(entityName: "Pod", objects: objects))
        }
    }

    /// Counts every pod in the store.
    func storedCount() throws -> Int {
        let context = context
        return try context.performAndWait { try context.count(for: FetchRequest<Pod>(entityName: "Pod")) }
    }
}

extension Pod {
    /// Reads all eight values.
    fileprivate var row: PodRow {
        PodRow(
            id: 0, name: name, version: version, authors: authors, homepage: homepage, license: license,
            summary: summary, downloads: downloads, updated: updated)
    }
}
