import Foundation
import ObjectStack
import Testing

/// `BatchInsertRequest` on every store: rows without objects, defaults, result types, handlers, uniqueness and
/// upserts, and registered objects left alone until merged.
@Suite("Batch insert")
struct BatchInsertTests {
    private func books(_ titles: [String]) -> [[String: Any]] {
        titles.enumerated().map { index, title in ["title": title, "pages": index * 10] }
    }

    @Test("rows land with their values and defaults; each result type answers", arguments: StoreType.allCases)
    func insertsRows(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            var request = BatchInsertRequest(entityName: "Book", objects: books(["a", "b"]))
            let status = try context.execute(request)
            #expect(status.result as? Bool == true && status.changes.isEmpty)
            request.objectsToInsert = books(["c", "d", "e"])
            request.resultType = .count
            #expect(try context.execute(request).count == 3)
            request.objectsToInsert = [["title": "f", "subtitle": "sub", "price": Decimal(string: "9.99")!]]
            request.resultType = .objectIDs
            let result = try context.execute(request)
            let ids = try #require(result.objectIDs)
            #expect(ids.count == 1 && !ids[0].isTemporaryID)
            #expect((result.changes["inserted"] as? [ManagedObjectID]) == ids)
            #expect(context.registeredObjects.isEmpty, "a batch insert registers no object")
            let titles = try context.all(Book.self, "Book").map(\.title)
            #expect(titles.sorted() == ["a", "b", "c", "d", "e", "f"])
            let f = try #require(try context.existingObject(with: ids[0]) as? Book)
            #expect(
                f.title == "f" && f.subtitle == "sub" && f.pages == 0 && f.inPrint, "defaults fill what is left out")
            #expect(f.value(forKey: "price") as? Decimal == Decimal(string: "9.99"))
            // Version 1, as after a save: an update through the context writes over it without a conflict.
            f.pages = 7
            try context.save()
            #expect(try context.storedValues(ids[0], ["pages"])["pages"] as? Int == 7)
        }
    }

    @Test("a dictionary handler and a managed-object handler fill one object per call", arguments: StoreType.allCases)
    func handlers(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            var index = 0
            var request = BatchInsertRequest(
                entityName: "Tag",
                dictionaryHandler: { values in
                    guard index < 3 else { return true }
                    values = ["name": "tag \(index)"]
                    index += 1
                    return false
                })
            request.resultType = .count
            #expect(try context.execute(request).count == 3)
            var made = 0
            var objects = BatchInsertRequest(
                entityName: "Book",
                managedObjectHandler: { object in
                    guard made < 2, let book = object as? Book else { return true }
                    book.title = "handled \(made)"
                    book.pages = 100 + made
                    made += 1
                    return false
                })
            objects.resultType = .objectIDs
            let ids = try #require(try context.execute(objects).objectIDs)
            #expect(ids.count == 2)
            let stored = try ids.map { try context.storedValues($0, ["title", "pages", "inPrint"]) }
            #expect(stored.map { $0["title"] as? String } == ["handled 0", "handled 1"])
            #expect(stored.map { $0["pages"] as? Int } == [100, 101])
            #expect(stored.allSatisfy { $0["inPrint"] as? Bool == true })
            #expect(try context.count("Tag") == 3)
        }
    }

    @Test(
        "objects registered in contexts are left alone until merged; the merge shows the inserts",
        arguments: StoreType.allCases)
    func mergeShowsInserts(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let viewer = stack.newContext()
        let recorder = NotificationRecorder(viewer, names: [ManagedObjectContext.objectsDidChangeNotification])
        let worker = stack.newContext()
        let result = try worker.performAndWait { () throws in
            var request = BatchInsertRequest(entityName: "Book", objects: books(["x", "y"]))
            request.resultType = .objectIDs
            return try worker.execute(request)
        }
        let ids = try #require(result.objectIDs)
        viewer.performAndWait { #expect(viewer.registeredObjects.isEmpty) }
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.changes, into: [viewer])
        try viewer.performAndWait { () throws in
            #expect(Set(viewer.registeredObjects.map(\.objectID)) == Set(ids))
            let titles = ids.compactMap { (viewer.registeredObject(for: $0) as? Book)?.title }
            #expect(titles == ["x", "y"])
        }
        let inserted = recorder.objects(ManagedObjectContext.objectsDidChangeNotification, .insertedObjects)
        #expect(Set(inserted.flatMap { $0.map(\.objectID) }) == Set(ids))
    }

    @Test(
        "under .error a repeated constrained value fails the request and writes nothing", arguments: StoreType.allCases)
    func constraintUnderError(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let request = BatchInsertRequest(
                entityName: "Tag", objects: [["name": "a"], ["name": "b"], ["name": "c"], ["name": "b"]])
            var error = try #require(throws: ObjectStackError.self) { try context.execute(request) }
            #expect(error.code == .constraintConflict && error.objectIndex == 3)
            #expect(error.message.contains("objects[3]") && error.message.contains("objects[1]"))
            #expect(try context.count("Tag") == 0, "nothing written")
            _ = try context.execute(BatchInsertRequest(entityName: "Tag", objects: [["name": "b"]]))
            let existing = try #require(try context.all(Tag.self, "Tag").first?.objectID)
            error = try #require(throws: ObjectStackError.self) {
                try context.execute(BatchInsertRequest(entityName: "Tag", objects: [["name": "z"], ["name": "b"]]))
            }
            #expect(error.code == .constraintConflict && error.objectIndex == 1)
            #expect(error.constraintConflicts.first?.existingObjectID == existing)
            #expect(try context.count("Tag") == 1, "the request wrote nothing, not even its first object")
        }
    }

    @Test(
        "under a merging policy the stored row is updated (an upsert), as the policy merges",
        arguments: StoreType.allCases,
        [MergePolicy.mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump, .overwrite, .rollback])
    func upsert(kind: StoreType, policy: MergePolicy) throws {
        let stack = try TestStack(kind, model: BatchModels.items())
        let context = stack.newContext()
        try context.performAndWait { () throws in
            var seed = BatchInsertRequest(
                entityName: "Item", objects: [["code": "A", "title": "first", "count": 5, "note": "kept"]])
            seed.resultType = .objectIDs
            let id = try #require(try context.execute(seed).objectIDs?.first)
            context.mergePolicy = policy
            var request = BatchInsertRequest(
                entityName: "Item",
                objects: [
                    ["code": "A", "title": "second", "note": NSNull()], ["code": "B", "title": "new"],
                    ["code": "B", "title": "newer", "count": 2],
                ])
            request.resultType = .objectIDs
            let result = try context.execute(request)
            #expect(try context.count("Item") == 2, "one row per code")
            let stored = try context.storedValues(id, ["title", "count", "note"])
            let a = (stored["title"] as? String, stored["count"] as? Int, stored["note"] as? String)
            switch policy {
            case .mergeByPropertyObjectTrump:
                // The keys the dictionary gives win; the others keep the stored values.
                #expect(a.0 == "second" && a.1 == 5 && a.2 == nil)
            case .overwrite:
                #expect(a.0 == "second" && a.1 == 0 && a.2 == nil)
            case .mergeByPropertyStoreTrump:
                #expect(a.0 == "first" && a.1 == 5 && a.2 == "kept")
            default:
                #expect(a.0 == "first" && a.1 == 5 && a.2 == "kept")
            }
            let ids = try #require(result.objectIDs)
            #expect(ids.contains(id) == (policy != .rollback), "the upserted row is written unless rolled back")
            let b = try #require(try context.all(ManagedObject.self, "Item", where: "code == 'B'").first)
            let expectedTitle = policy == .mergeByPropertyStoreTrump || policy == .rollback ? "new" : "newer"
            #expect(b.value(forKey: "title") as? String == expectedTitle, "repeats within the request merge too")
            #expect(ids.contains(b.objectID))
        }
    }

    @Test(
        "an upsert moves the row's version on: a context holding it conflicts when it saves",
        arguments: StoreType.allCases)
    func upsertConflicts(kind: StoreType) throws {
        let stack = try TestStack(kind, model: BatchModels.items())
        let holder = stack.newContext()
        let id = try holder.performAndWait { () throws in
            let item = try holder.insertNewObject(forEntityName: "Item")
            try item.setValue("A", forKey: "code")
            try item.setValue("held", forKey: "title")
            try holder.save()
            return item.objectID
        }
        let batch = stack.newContext()
        batch.mergePolicy = .mergeByPropertyObjectTrump
        try batch.performAndWait { () throws in
            _ = try batch.execute(BatchInsertRequest(entityName: "Item", objects: [["code": "A", "title": "batch"]]))
        }
        try holder.performAndWait { () throws in
            let item = holder.object(with: id)
            #expect(item.value(forKey: "title") as? String == "held", "left alone until merged")
            try item.setValue(9, forKey: "count")
            let error = try #require(throws: ObjectStackError.self) { try holder.save() }
            #expect(error.code == .mergeConflict)
            #expect(error.mergeConflicts.first?.storeValues?["title"] == .string("batch"))
        }
    }

    @Test("upserting keeps the stored row's relationships", arguments: StoreType.allCases)
    func upsertKeepsRelationships(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let tag = Tag(context: context)
            tag.name = "classic"
            let book = Book(context: context)
            book.title = "Dune"
            book.tags = [tag]
            try context.save()
            context.mergePolicy = .overwrite
            _ = try context.execute(BatchInsertRequest(entityName: "Tag", objects: [["name": "classic"]]))
            context.reset()
            let stored = try #require(try context.all(Tag.self, "Tag").first)
            #expect(stored.books.map(\.title) == ["Dune"])
        }
    }
}
