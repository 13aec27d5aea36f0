import Foundation
import ObjectStack
import ObjectStackSQLite
import Testing

/// The SQLite store carries out a batch update in one `UPDATE` with the expressions compiled into it, and leaves to
/// the row-by-row path what a save must check (uniqueness constraints).
@Suite("SQLite batch update")
struct SQLiteBatchUpdateTests {
    /// A store with `Other` rows n = 1, 2, 3 and `Item` rows named a, b (unique).
    static func stack() throws -> (SQLiteStore, ManagedObjectModel, PersistentStoreCoordinator) {
        let url = try SQLiteStoreTests.directory().appendingPathComponent("update.sqlite")
        let model = try SQLiteStoreTests.model()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try #require(try coordinator.addPersistentStore(type: .sqlite, at: url) as? SQLiteStore)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            for n in 1...3 {
                try ManagedObject(entity: model.entitiesByName["Other"]!, insertInto: context).setValue(n, forKey: "n")
            }
            for name in ["a", "b"] {
                try ManagedObject(entity: model.entitiesByName["Item"]!, insertInto: context)
                    .setValue(name, forKey: "name")
            }
            try context.save()
        }
        return (store, model, coordinator)
    }

    static func update(_ entity: EntityDescription, _ key: String, _ format: String) throws -> StoreBatchUpdate {
        let expression = try PropertyExpression(format: format)
        return StoreBatchUpdate(
            fetch: StoreFetchRequest(entity: entity),
            assignments: [
                .init(
                    attribute: entity.attributesByName[key]!, value: try expression.bound(to: entity),
                    source: format)
            ],
            now: Date())
    }

    @Test("an expression is computed in the store's own UPDATE: the rows come back written, each version one more")
    func compiled() throws {
        let (store, model, coordinator) = try Self.stack()
        defer { withExtendedLifetime(coordinator) {} }
        let other = model.entitiesByName["Other"]!
        let request = try Self.update(other, "n", "n * 10 + abs:(n - 2)")
        let rows = try #require(try store.performBatch(rowsHint: 0) { try $0.update(request) })
        #expect(
            rows.map { $0.1.value(at: other.attributesByName["n"]!.storedIndex!) }
                == [11, 20, 31].map {
                    StoreValue.integer($0)
                })
        #expect(rows.map(\.1.version) == [2, 2, 2])
        #expect(rows.map(\.0.key) == rows.map(\.0.key).sorted())
    }

    @Test("an attribute under a uniqueness constraint is left to the row-by-row path, which checks it")
    func constrainedFallsBack() throws {
        let (store, model, coordinator) = try Self.stack()
        defer { withExtendedLifetime(coordinator) {} }
        let item = model.entitiesByName["Item"]!
        let request = try Self.update(item, "name", "uppercase:(name)")
        #expect(try store.performBatch(rowsHint: 0) { try $0.update(request) } == nil)
    }
}
