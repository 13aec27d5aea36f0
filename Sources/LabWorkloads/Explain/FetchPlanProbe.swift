import Foundation
import LabCore
import ObjectStack
import ObjectStackLMDB
import ObjectStackSQLite

/// Shows the plan a store chooses for a pod fetch (`stacklab explain`): on a pod store file, or on a
/// temporary store of N generated pods.
///
/// For example:
/// ```swift
/// let probe = FetchPlanProbe(store: .lmdb, objects: 10_000, sortKeys: [SortKey("name")], limit: 50)
/// print(try probe.run())   // SCAN Pod USING INDEX index/Pod/byName(name); ORDER FROM INDEX (1 sort key); …
/// ```
public struct FetchPlanProbe {
    /// The store kind.
    public var store: StoreKind
    /// An existing pod store (model version 1) to explain on; nil for a temporary one of `objects` pods.
    public var path: String?
    /// Pods in the temporary store.
    public var objects: Int
    /// The predicate's format string, or nil for every pod.
    public var predicate: String?
    /// The sort keys.
    public var sortKeys: [SortKey]
    /// The fetch limit (0 for none) and offset.
    public var limit: Int
    public var offset: Int
    /// Whether to explain the count of the request instead of the fetch.
    public var counts: Bool

    /// Creates a probe.
    public init(
        store: StoreKind, path: String? = nil, objects: Int = 10_000, predicate: String? = nil,
        sortKeys: [SortKey] = [], limit: Int = 0, offset: Int = 0, counts: Bool = false
    ) {
        self.store = store
        self.path = path
        self.objects = objects
        self.predicate = predicate
        self.sortKeys = sortKeys
        self.limit = limit
        self.offset = offset
        self.counts = counts
    }

    /// Creates a probe whose sort keys are written as `stacklab explain --sort` takes them: comma-separated,
    /// a leading `-` sorting descending (for example `name,-version`).
    public init(
        store: StoreKind, path: String? = nil, objects: Int = 10_000, predicate: String? = nil, sort: String?,
        limit: Int = 0, offset: Int = 0, counts: Bool = false
    ) {
        let sortKeys = (sort ?? "").split(separator: ",").map { part in
            part.hasPrefix("-") ? SortKey(String(part.dropFirst()), ascending: false) : SortKey(String(part))
        }
        self.init(
            store: store, path: path, objects: objects, predicate: predicate, sortKeys: sortKeys, limit: limit,
            offset: offset, counts: counts)
    }

    /// Opens (or builds) the store, runs the fetch once through `ManagedObjectContext.explain(_:)` and returns
    /// the plan.
    /// - Throws: `ObjectStackError` for a predicate that does not parse or bind, or from the store (SQLite does
    ///   not explain its plans through the context).
    public func run() throws -> QueryPlan {
        let model = try PodModel.make()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stacklab-explain-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url: URL
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        if let path {
            // On a copy: opening a store may write to it (a lock, a recovered transaction), and the file is the user's.
            let original = URL(fileURLWithPath: path)
            url = folder.appendingPathComponent(original.lastPathComponent)
            try FileManager.default.copyItem(at: original, to: url)
        } else {
            url = store.location(in: folder)
        }
        let coordinator = try LabStack.openCoordinator(store: store, at: url, model: model)
        defer { for store in coordinator.persistentStores { try? coordinator.remove(store) } }
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return try context.performAndWait {
            if path == nil {
                var start = 0
                while start < objects {
                    let end = min(start + 10_000, objects)
                    for index in start..<end { Pod(context: context).set(PodRow.make(index)) }
                    try context.save()
                    context.reset()
                    start = end
                }
            }
            var request = FetchRequest<Pod>(entityName: "Pod")
            if let predicate { request.predicate = try FetchPredicate(format: predicate) }
            request.sortDescriptors = sortKeys
            request.fetchLimit = limit
            request.fetchOffset = offset
            if counts { request.resultType = .count }
            return try context.explain(request)
        }
    }
}
