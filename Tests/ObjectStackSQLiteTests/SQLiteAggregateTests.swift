import CSQLite
import Foundation
import Testing

@testable import ObjectStack
@testable import ObjectStackSQLite

/// The SQL an aggregate fetch compiles to, and SQLite's plan for it: what an index serves.
@Suite("SQLite aggregate fetches")
struct SQLiteAggregateTests {
    /// A store of items with an indexed name and an unindexed rank, and its file.
    static func store() throws -> (SQLiteStore, ManagedObjectModel, URL) {
        let model = try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Item",
                attributes: [
                    AttributeDescription(name: "name", type: .string, isOptional: false, isIndexed: true),
                    AttributeDescription(name: "rank", type: .integer64),
                ])
        ])
        let url = try SQLiteStoreTests.directory().appendingPathComponent("aggregates.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try #require(try coordinator.addPersistentStore(type: .sqlite, at: url) as? SQLiteStore)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            for index in 0..<50 {
                let item = ManagedObject(entity: model.entitiesByName["Item"]!, insertInto: context)
                try item.setValue("item \(index)", forKey: "name")
                try item.setValue(Int64(index % 5), forKey: "rank")
            }
            try context.save()
        }
        return (store, model, url)
    }

    /// SQLite's `EXPLAIN QUERY PLAN` lines for the query of an aggregate request (placeholders unbound).
    static func plan(_ request: FetchRequest<[String: Any]>, store: SQLiteStore, model: ManagedObjectModel, url: URL)
        throws -> [String]
    {
        let aggregate = try #require(
            try AggregateFetchPlan(request: request, model: model, resultClass: [String: Any].self))
        let sql = store.compile(aggregate.store).0.sql
        var db: OpaquePointer?
        #expect(sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK)
        defer { sqlite3_close(db) }
        // The store's own SQL functions (os_sum…), as its connections have them.
        try SQLiteFunctions.register(on: try #require(db))
        var statement: OpaquePointer?
        #expect(sqlite3_prepare_v2(db, "EXPLAIN QUERY PLAN " + sql, -1, &statement, nil) == SQLITE_OK, "\(sql)")
        defer { sqlite3_finalize(statement) }
        var lines: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            lines.append(String(cString: sqlite3_column_text(statement, 3)))
        }
        return lines
    }

    @Test("min: and max: of an indexed attribute each search one end of the index")
    func extremes() throws {
        let (store, model, url) = try Self.store()
        var request = FetchRequest<[String: Any]>(entityName: "Item")
        request.propertiesToFetch = [
            ExpressionDescription(name: "first", expression: .min("name")),
            ExpressionDescription(name: "last", expression: .max("name")),
        ]
        let lines = try Self.plan(request, store: store, model: model, url: url)
        #expect(lines.filter { $0.hasPrefix("SEARCH") && $0.contains("INDEX") }.count == 2, "\(lines)")
        #expect(!lines.contains { $0.hasPrefix("SCAN t0") }, "\(lines)")
    }

    @Test("a count whose predicate an index serves reads the index, and grouping by the indexed key walks it")
    func countsAndGroups() throws {
        let (store, model, url) = try Self.store()
        var request = FetchRequest<[String: Any]>(entityName: "Item")
        request.propertiesToFetch = [ExpressionDescription(name: "items", expression: .count("name"))]
        request.predicate = try FetchPredicate(format: "name >= 'item 3' AND name < 'item 4'")
        let counted = try Self.plan(request, store: store, model: model, url: url)
        #expect(counted.contains { $0.hasPrefix("SEARCH") && $0.contains("COVERING INDEX") }, "\(counted)")
        request.predicate = nil
        request.propertiesToFetch = ["name", ExpressionDescription(name: "ranks", expression: .sum("rank"))]
        request.propertiesToGroupBy = ["name"]
        let grouped = try Self.plan(request, store: store, model: model, url: url)
        #expect(grouped.contains { $0.contains("USING INDEX") }, "\(grouped)")
        #expect(!grouped.contains { $0.contains("TEMP B-TREE FOR GROUP BY") }, "\(grouped)")
    }
}
