import Foundation
import LabWorkloads
import ObjectStack

/// One row that two processes change, for the test that a save in one process conflicts with a change made in
/// another exactly as with a change made by a second coordinator in the same process.
public enum SharedItem {
    /// The model: `Item`, unique by `code`, with a `title` and a `count`.
    public static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Item",
                attributes: [
                    AttributeDescription(name: "code", type: .string, isOptional: false),
                    AttributeDescription(name: "title", type: .string),
                    AttributeDescription(name: "count", type: .integer64, defaultValue: 0),
                ],
                uniquenessConstraints: [["code"]])
        ])
    }

    /// A context on the store at `url` with the item's model.
    public static func openContext(store: StoreKind, at url: URL) throws -> ManagedObjectContext {
        try LabStack.openContext(store: store, at: url, model: try model())
    }

    /// Creates the store with the item `shared` (title `start`, count 0).
    public static func seed(store: StoreKind, at url: URL) throws {
        let context = try openContext(store: store, at: url)
        try context.performAndWait {
            let item = try context.insertNewObject(forEntityName: "Item")
            try item.setValue("shared", forKey: "code")
            try item.setValue("start", forKey: "title")
            try context.save()
        }
        try close(context)
    }

    /// Sets the item's title, through a context save or a `BatchUpdateRequest`, on a coordinator of its own.
    public static func setTitle(_ title: String, store: StoreKind, at url: URL, batch: Bool) throws {
        let context = try openContext(store: store, at: url)
        try context.performAndWait {
            if batch {
                var request = BatchUpdateRequest(entityName: "Item")
                request.predicate = try FetchPredicate(format: "code == 'shared'")
                request.propertiesToUpdate = ["title": title]
                _ = try context.execute(request)
            } else {
                var request = FetchRequest<ManagedObject>(entityName: "Item")
                request.predicate = try FetchPredicate(format: "code == 'shared'")
                guard let item = try context.fetch(request).first else {
                    throw SaveLoopError("the shared item is not in the store")
                }
                try item.setValue(title, forKey: "title")
                try context.save()
            }
        }
        try close(context)
    }

    /// Batch-inserts about `kilobytes` KB of other items (1 KB titles), growing the store's file (LMDB: its map).
    public static func fill(kilobytes: Int, store: StoreKind, at url: URL) throws {
        let context = try openContext(store: store, at: url)
        try context.performAndWait {
            let title = String(repeating: "f", count: 1_000)
            let objects: [[String: Any]] = (0..<kilobytes).map { ["code": "fill \($0)", "title": title] }
            _ = try context.execute(BatchInsertRequest(entityName: "Item", objects: objects))
        }
        try close(context)
    }

    /// Closes the context's stores.
    public static func close(_ context: ManagedObjectContext) throws {
        guard let coordinator = context.persistentStoreCoordinator else { return }
        context.performAndWait { context.reset() }
        for store in coordinator.persistentStores { try coordinator.remove(store) }
    }
}
