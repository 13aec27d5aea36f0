import Foundation
import ObjectStack
import Testing

/// `mergeChanges(fromRemoteContextSave:into:)`: changes made outside the contexts, given as IDs or URIs, merged
/// into several contexts at once.
@Suite("Merging remote changes")
struct RemoteMergeTests {
    @Test(
        "IDs and URIs under Core Data's keys refresh, remove and insert in every context given",
        arguments: StoreType.allCases)
    func mergesIntoEveryContext(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let seeder = stack.newContext()
        let ids = try seeder.performAndWait { () throws in
            let books = ["a", "b"].map { title -> Book in
                let book = Book(context: seeder)
                book.title = title
                return book
            }
            try seeder.save()
            return books.map(\.objectID)
        }
        let first = stack.newContext()
        let second = try stack.separateStack().newContext()
        for context in [first, second] {
            context.performAndWait { for id in ids { _ = (context.object(with: id) as! Book).title } }
        }
        // Changes made behind the contexts' backs: a batch update and delete, and an insert by another stack.
        let writer = stack.newContext()
        let inserted = try writer.performAndWait { () throws in
            var update = BatchUpdateRequest(entityName: "Book")
            update.predicate = try FetchPredicate(format: "title == 'a'")
            update.propertiesToUpdate = ["title": "a2"]
            _ = try writer.execute(update)
            _ = try writer.execute(BatchDeleteRequest(objectIDs: [ids[1]]))
            var insert = BatchInsertRequest(entityName: "Book", objects: [["title": "c"]])
            insert.resultType = .objectIDs
            return try #require(try writer.execute(insert).objectIDs?.first)
        }
        let changes: [AnyHashable: Any] = [
            "updated": [ids[0].uriRepresentation()], "deleted": Set([ids[1]]), "inserted": [inserted],
        ]
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: changes, into: [first, second])
        for context in [first, second] {
            context.performAndWait {
                #expect((context.registeredObject(for: ids[0]) as? Book)?.title == "a2")
                #expect(context.registeredObject(for: ids[1]) == nil)
                #expect((context.registeredObject(for: inserted) as? Book)?.title == "c")
            }
        }
    }

    @Test("a merge of nothing, or of IDs no store here knows, changes nothing", arguments: StoreType.allCases)
    func ignoresForeignIDs(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let other = try TestStack(kind)
        let context = stack.newContext()
        let foreign = try other.newContext().performAndWait { () throws in
            var insert = BatchInsertRequest(entityName: "Tag", objects: [["name": "x"]])
            insert.resultType = .objectIDs
            return try #require(try other.newContext().execute(insert).objectIDs?.first)
        }
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: [:], into: [context])
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: ["inserted": [foreign]], into: [context])
        context.performAndWait { #expect(context.registeredObjects.isEmpty) }
    }
}
