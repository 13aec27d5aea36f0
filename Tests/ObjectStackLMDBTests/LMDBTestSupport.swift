import Foundation
import ObjectStack

@testable import ObjectStackLMDB

/// A small model for the LMDB store's own tests: every indexed kind, the same values unindexed, a
/// uniqueness constraint.
enum ItemModel {
    static func make(extraAttribute: Bool = false) throws -> ManagedObjectModel {
        var attributes = [
            AttributeDescription(name: "code", type: .string, isOptional: false),
            AttributeDescription(name: "n", type: .integer64, defaultValue: 0, isIndexed: true),
            AttributeDescription(name: "plainN", type: .integer64, defaultValue: 0),
            AttributeDescription(name: "x", type: .double, defaultValue: 0),
            AttributeDescription(name: "plainX", type: .double, defaultValue: 0),
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "plainName", type: .string),
            AttributeDescription(name: "when", type: .date),
            AttributeDescription(name: "plainWhen", type: .date),
        ]
        if extraAttribute { attributes.append(AttributeDescription(name: "extra", type: .string)) }
        let item = EntityDescription(
            name: "Item", attributes: attributes, uniquenessConstraints: [["code"]],
            indexes: [
                IndexDescription(name: "byName", attributeNames: ["name"]),
                IndexDescription(name: "byWhen", attributeNames: ["when", "x"]),
                IndexDescription(name: "byX", attributeNames: ["x"]),
            ])
        return try ManagedObjectModel(entities: [item])
    }
}

/// A fresh folder for one test's store files, removed when the test ends.
final class ScratchFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("lmdb-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func file(_ name: String = "store.lmdb") -> URL { url.appendingPathComponent(name) }
}

/// A coordinator with one LMDB store on a file.
struct LMDBStack {
    let coordinator: PersistentStoreCoordinator
    let store: any PersistentStore

    init(_ url: URL, model: ManagedObjectModel? = nil, options: [String: String] = [:]) throws {
        coordinator = PersistentStoreCoordinator(managedObjectModel: try model ?? ItemModel.make())
        store = try coordinator.addPersistentStore(type: .lmdb, at: url, options: options)
    }

    func context() -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Inserts `count` items numbered from `start` in one save.
    func insertItems(_ count: Int, from start: Int = 0, padding: Int = 0) throws {
        let context = context()
        try context.performAndWait { () throws in
            let entity = coordinator.managedObjectModel.entitiesByName["Item"]!
            let filler = String(repeating: "x", count: padding)
            for index in start..<(start + count) {
                let item = ManagedObject(entity: entity, insertInto: context)
                try item.setValue("c\(index)\(filler)", forKey: "code")
                let n = (index * 7919) % 1000 - 500
                try item.setValue(n, forKey: "n")
                try item.setValue(n, forKey: "plainN")
                let x = Double(index % 97) / 4 - 10
                try item.setValue(x, forKey: "x")
                try item.setValue(x, forKey: "plainX")
                let name: String? =
                    index % 11 == 0
                    ? nil
                    : ["alpha", "alps", "beta", "b\u{0}eta", "é", "zeta"][index % 6]
                        + "\(index % 13)"
                try item.setValue(name, forKey: "name")
                try item.setValue(name, forKey: "plainName")
                let when = Date(timeIntervalSinceReferenceDate: Double(index % 50) * 3600)
                try item.setValue(when, forKey: "when")
                try item.setValue(when, forKey: "plainWhen")
            }
            try context.save()
        }
    }

    /// The IDs an entity's fetch returns, in order.
    func ids(_ format: String? = nil, arguments args: [Any] = [], sort: [SortKey] = []) throws -> [ManagedObjectID] {
        let context = context()
        return try context.performAndWait {
            var request = FetchRequest<ManagedObject>(entityName: "Item")
            if let format { request.predicate = try FetchPredicate(format: format, argumentArray: args) }
            request.sortDescriptors = sort
            return try context.fetch(request).map(\.objectID)
        }
    }

    func count() throws -> Int {
        let context = context()
        return try context.performAndWait { try context.count(for: FetchRequest<ManagedObject>(entityName: "Item")) }
    }
}
