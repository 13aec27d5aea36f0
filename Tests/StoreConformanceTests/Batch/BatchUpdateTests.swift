import Foundation
import ObjectStack
import Testing

/// `BatchUpdateRequest` on every store: matching rows only, result types, versions, sub-entities, uniqueness, the row
/// cache, and the merge.
@Suite("Batch update")
struct BatchUpdateTests {
    @Test("updates the rows the predicate matches; each result type answers", arguments: StoreType.allCases)
    func updatesMatches(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        let ids = try context.saveBooks(["a", "b", "c", "d"])
        try context.performAndWait { () throws in
            var request = BatchUpdateRequest(entityName: "Book")
            request.predicate = try FetchPredicate(format: "pages >= 20")
            request.propertiesToUpdate = ["subtitle": "long", "pages": 99]
            #expect(try context.execute(request).result as? Bool == true)
            request.resultType = .updatedObjectsCount
            request.propertiesToUpdate = ["inPrint": false]
            #expect(try context.execute(request).count == 2)
            request.predicate = try FetchPredicate(format: "title == 'a'")
            request.resultType = .updatedObjectIDs
            request.propertiesToUpdate = ["subtitle": NSNull()]
            let result = try context.execute(request)
            #expect(result.objectIDs == [ids[0]])
            #expect((result.changes["updated"] as? [ManagedObjectID]) == [ids[0]])
            let stored = try ids.map { try context.storedValues($0, ["subtitle", "pages", "inPrint"]) }
            #expect(stored.map { $0["pages"] as? Int } == [0, 10, 99, 99])
            #expect(stored.map { $0["subtitle"] as? String } == [nil, nil, "long", "long"])
            #expect(stored.map { $0["inPrint"] as? Bool } == [true, true, false, false])
        }
    }

    @Test("sub-entities' rows are updated unless excluded", arguments: StoreType.allCases)
    func subentities(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let dog = Dog(context: context)
            dog.name = "Rex"
            let cat = Cat(context: context)
            cat.name = "Tom"
            try context.save()
            var request = BatchUpdateRequest(entityName: "Animal")
            request.propertiesToUpdate = ["name": "renamed"]
            request.resultType = .updatedObjectsCount
            #expect(try context.execute(request).count == 2)
            var dogsOnly = BatchUpdateRequest(entityName: "Dog")
            dogsOnly.propertiesToUpdate = ["breed": "collie"]
            dogsOnly.includesSubentities = false
            dogsOnly.resultType = .updatedObjectIDs
            #expect(try context.execute(dogsOnly).objectIDs == [dog.objectID])
            #expect(try context.storedValues(cat.objectID, ["name"])["name"] as? String == "renamed")
            #expect(try context.storedValues(dog.objectID, ["name", "breed"])["breed"] as? String == "collie")
        }
    }

    @Test(
        "registered objects keep their values until merged; a save over a stale object conflicts as after a save",
        arguments: StoreType.allCases)
    func versionsMoveOn(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let holder = stack.newContext()
        let ids = try holder.saveBooks(["a", "b"])
        let books = holder.performAndWait { ids.map { holder.object(with: $0) as! Book } }
        holder.performAndWait { _ = books.map(\.title) }
        let batch = stack.newContext()
        try batch.performAndWait { () throws in
            var request = BatchUpdateRequest(entityName: "Book")
            request.propertiesToUpdate = ["subtitle": "batched"]
            _ = try batch.execute(request)
        }
        try holder.performAndWait { () throws in
            #expect(books[0].subtitle == nil, "left alone until merged")
            books[0].pages = 5
            let error = try #require(throws: ObjectStackError.self) { try holder.save() }
            #expect(error.code == .mergeConflict)
            let conflict = try #require(error.mergeConflicts.first)
            #expect(conflict.storeValues?["subtitle"] == .string("batched"))
            #expect(conflict.storeVersion == conflict.cachedVersion + 1, "the batch moved the version on by one")
            holder.mergePolicy = .mergeByPropertyObjectTrump
            try holder.save()
            #expect(books[0].subtitle == "batched" && books[0].pages == 5)
        }
    }

    @Test(
        "the coordinator's row cache serves no stale row after a batch update; the merge refreshes",
        arguments: StoreType.allCases)
    func rowCacheAndMerge(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let viewer = stack.newContext()
        let ids = try viewer.saveBooks(["a"])
        let book = viewer.performAndWait { viewer.object(with: ids[0]) as! Book }
        viewer.performAndWait { _ = book.title }
        let recorder = NotificationRecorder(viewer, names: [ManagedObjectContext.objectsDidChangeNotification])
        let batch = stack.newContext()
        let result = try batch.performAndWait { () throws in
            var request = BatchUpdateRequest(entityName: "Book")
            request.propertiesToUpdate = ["title": "b"]
            request.resultType = .updatedObjectIDs
            return try batch.execute(request)
        }
        // Another context on the same coordinator reads the row through the cache the viewer filled.
        let reader = stack.newContext()
        try reader.performAndWait { () throws in
            let fresh = try #require(try reader.existingObject(with: ids[0]) as? Book)
            #expect(fresh.title == "b", "the cache holds the batch's row, not the one read before")
        }
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.changes, into: [viewer])
        viewer.performAndWait { #expect(book.title == "b") }
        let refreshed = recorder.objects(ManagedObjectContext.objectsDidChangeNotification, .refreshedObjects)
        #expect(refreshed.contains { $0.contains(book) })
    }

    @Test(
        "a batch update that would give two rows one constrained value fails and writes nothing",
        arguments: StoreType.allCases)
    func constraint(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            _ = try context.execute(BatchInsertRequest(entityName: "Tag", objects: [["name": "a"], ["name": "b"]]))
            var request = BatchUpdateRequest(entityName: "Tag")
            request.propertiesToUpdate = ["name": "same"]
            let error = try #require(throws: ObjectStackError.self) { try context.execute(request) }
            #expect(error.code == .constraintConflict)
            // Read fresh each time: registered tags keep the values they were read with until a merge.
            func names() throws -> [String] {
                context.reset()
                return try context.all(Tag.self, "Tag").map(\.name).sorted()
            }
            #expect(try names() == ["a", "b"])
            request.predicate = try FetchPredicate(format: "name == 'a'")
            request.propertiesToUpdate = ["name": "b"]
            #expect(throws: ObjectStackError.self) { try context.execute(request) }
            request.propertiesToUpdate = ["name": "c"]
            _ = try context.execute(request)
            #expect(try names() == ["b", "c"])
        }
    }
}
