import Foundation
import ObjectStack
import Testing

/// `BatchDeleteRequest` on every store: result types, IDs, the delete rules Core Data applies to batch deletes,
/// and registered objects left alone until merged.
@Suite("Batch delete")
struct BatchDeleteTests {
    @Test("deletes what the fetch request matches; each result type answers", arguments: StoreType.allCases)
    func deletesMatches(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            var insert = BatchInsertRequest(
                entityName: "Tag", objects: (0..<6).map { ["name": "t\($0)"] })
            insert.resultType = .objectIDs
            let ids = try #require(try context.execute(insert).objectIDs)
            var fetch = FetchRequest<Tag>(entityName: "Tag")
            fetch.predicate = try FetchPredicate(format: "name IN %@", ["t0", "t1"])
            #expect(try context.execute(BatchDeleteRequest(fetchRequest: fetch)).result as? Bool == true)
            fetch.predicate = try FetchPredicate(format: "name == 't2'")
            var request = BatchDeleteRequest(fetchRequest: fetch)
            request.resultType = .count
            #expect(try context.execute(request).count == 1)
            fetch.predicate = nil
            fetch.sortDescriptors = [SortKey("name", ascending: false)]
            fetch.fetchLimit = 2
            request = BatchDeleteRequest(fetchRequest: fetch)
            request.resultType = .objectIDs
            let result = try context.execute(request)
            #expect(result.objectIDs == [ids[5], ids[4]], "the sort and limit pick the rows")
            #expect((result.changes["deleted"] as? [ManagedObjectID]) == [ids[5], ids[4]])
            #expect(try context.all(Tag.self, "Tag").map(\.name) == ["t3"])
        }
    }

    @Test("deletes by object IDs; IDs of several entities are refused", arguments: StoreType.allCases)
    func deletesByIDs(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let tags = (0..<3).map { index -> Tag in
                let tag = Tag(context: context)
                tag.name = "t\(index)"
                return tag
            }
            let book = Book(context: context)
            book.title = "b"
            try context.save()
            let mixed = BatchDeleteRequest(objectIDs: [tags[0].objectID, book.objectID])
            let error = try #require(throws: ObjectStackError.self) { try context.execute(mixed) }
            #expect(error.code == .invalidArgument && error.message.contains("several entities"))
            var request = BatchDeleteRequest(objectIDs: [tags[0].objectID, tags[2].objectID])
            request.resultType = .count
            #expect(try context.execute(request).count == 2)
            #expect(try context.storedValues(tags[1].objectID, ["name"])["name"] as? String == "t1")
            #expect(try context.storedValues(tags[0].objectID, ["name"]).isEmpty)
        }
    }

    /// An author with an agent (nullify, one-to-one) and two books (cascade); each book with a chapter (cascade),
    /// a tag (many-to-many, nullify) and a publisher (nullify; its to-many inverse has the deny rule).
    private func library(_ context: ManagedObjectContext) throws -> (
        author: ManagedObjectID, agent: ManagedObjectID, books: [ManagedObjectID], chapters: [ManagedObjectID],
        tag: ManagedObjectID, publisher: ManagedObjectID
    ) {
        try context.performAndWait { () throws in
            let author = Author(context: context)
            author.name = "Frank"
            let agent = Agent(context: context)
            agent.name = "Ann"
            author.agent = agent
            let tag = Tag(context: context)
            tag.name = "classic"
            let publisher = Publisher(context: context)
            publisher.name = "Chilton"
            var books: [Book] = []
            var chapters: [Chapter] = []
            for title in ["Dune", "Messiah"] {
                let book = Book(context: context)
                book.title = title
                book.author = author
                book.tags = [tag]
                book.publisher = publisher
                let chapter = Chapter(context: context)
                chapter.title = "\(title) 1"
                chapter.book = book
                books.append(book)
                chapters.append(chapter)
            }
            try context.save()
            return (
                author.objectID, agent.objectID, books.map(\.objectID), chapters.map(\.objectID), tag.objectID,
                publisher.objectID
            )
        }
    }

    @Test(
        "cascade deletes through every level, nullify clears references back and moves versions on",
        arguments: StoreType.allCases)
    func deleteRules(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let setup = stack.newContext()
        let ids = try library(setup)
        // A context holding the agent and the publisher, which the nullify rules change.
        let holder = stack.newContext()
        let (agent, publisher) = holder.performAndWait {
            (holder.object(with: ids.agent) as! Agent, holder.object(with: ids.publisher) as! Publisher)
        }
        holder.performAndWait {
            _ = agent.name
            _ = publisher.name
        }
        let context = stack.newContext()
        let result = try context.performAndWait { () throws in
            var request = BatchDeleteRequest(fetchRequest: FetchRequest<Author>(entityName: "Author"))
            request.resultType = .objectIDs
            return try context.execute(request)
        }
        let deleted = Set(try #require(result.objectIDs))
        #expect(deleted == Set([ids.author] + ids.books + ids.chapters), "the cascade reaches books and chapters")
        #expect(Set(result.nullifiedObjectIDs) == [ids.agent, ids.publisher])
        try context.performAndWait { () throws in
            #expect(try context.count("Book") == 0 && context.count("Chapter") == 0 && context.count("Author") == 0)
            let tag = try #require(try context.existingObject(with: ids.tag) as? Tag)
            #expect(tag.books.isEmpty, "many-to-many links go with the deleted books")
            let storedAgent = try #require(try context.existingObject(with: ids.agent) as? Agent)
            #expect(storedAgent.client == nil, "the one-to-one reference back is cleared")
            let storedPublisher = try #require(try context.existingObject(with: ids.publisher) as? Publisher)
            #expect(storedPublisher.books.isEmpty)
        }
        try holder.performAndWait { () throws in
            publisher.name = "Ace"
            let error = try #require(throws: ObjectStackError.self) { try holder.save() }
            #expect(error.code == .mergeConflict, "the publisher's to-many changed: its version moved on")
            #expect(Set(error.mergeConflicts.map(\.objectID)) == [ids.publisher])
        }
    }

    @Test("a deny rule is not supported: the request is refused and nothing is deleted", arguments: StoreType.allCases)
    func denyRefused(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        let ids = try library(context)
        try context.performAndWait { () throws in
            let error = try #require(throws: ObjectStackError.self) {
                try context.execute(BatchDeleteRequest(objectIDs: [ids.publisher]))
            }
            #expect(error.code == .invalidArgument && error.message.contains("Publisher.books"))
            #expect(error.message.contains("deny"))
            #expect(try context.count("Publisher") == 1 && context.count("Book") == 2)
        }
    }

    @Test(
        "a nullify rule whose inverse is required fails the request while a destination stays; nothing is deleted",
        arguments: StoreType.allCases)
    func requiredInverse(kind: StoreType) throws {
        let stack = try TestStack(kind, model: BatchModels.requiredInverses())
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let parent = try context.insertNewObject(forEntityName: "Parent")
            let lonely = try context.insertNewObject(forEntityName: "Parent")
            let child = try context.insertNewObject(forEntityName: "Child")
            try child.setValue(parent, forKey: "parent")
            let group = try context.insertNewObject(forEntityName: "Group")
            let shared = try context.insertNewObject(forEntityName: "Group")
            let member = try context.insertNewObject(forEntityName: "Member")
            try member.setValue(Set([group, shared]), forKey: "groups")
            let loyal = try context.insertNewObject(forEntityName: "Member")
            try loyal.setValue(Set([group]), forKey: "groups")
            try context.save()
            var error = try #require(throws: ObjectStackError.self) {
                try context.execute(BatchDeleteRequest(objectIDs: [parent.objectID, lonely.objectID]))
            }
            #expect(error.code == .validationFailed && error.message.contains("mandatory OTM nullify inverse"))
            #expect(error.validationFailures.map(\.objectID) == [child.objectID])
            #expect(try context.count("Parent") == 2, "nothing deleted, not even the parent without children")
            // A member left in another group keeps its required relationship; one in no other group does not.
            error = try #require(throws: ObjectStackError.self) {
                try context.execute(BatchDeleteRequest(objectIDs: [group.objectID]))
            }
            #expect(error.message.contains("mandatory MTM nullify inverse"))
            #expect(error.validationFailures.map(\.objectID) == [loyal.objectID])
            var request = BatchDeleteRequest(objectIDs: [shared.objectID])
            request.resultType = .count
            #expect(try context.execute(request).count == 1, "the member keeps its other group")
            // A child deleted first is no obstacle to deleting its parent.
            var children = BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Child"))
            children.resultType = .count
            #expect(try context.execute(children).count == 1)
            _ = try context.execute(BatchDeleteRequest(objectIDs: [parent.objectID, lonely.objectID]))
            #expect(try context.count("Parent") == 0)
        }
    }

    @Test(
        "a to-one whose required inverse is a to-many fails only when a destination would be left with no member",
        arguments: StoreType.allCases)
    func requiredToManyInverse(kind: StoreType) throws {
        let stack = try TestStack(kind, model: BatchModels.requiredInverses())
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let saga = try context.insertNewObject(forEntityName: "Series")
            let first = try context.insertNewObject(forEntityName: "Book")
            let second = try context.insertNewObject(forEntityName: "Book")
            let single = try context.insertNewObject(forEntityName: "Series")
            let only = try context.insertNewObject(forEntityName: "Book")
            for (book, series) in [(first, saga), (second, saga), (only, single)] {
                try book.setValue(series, forKey: "series")
            }
            try context.save()
            // The series keeps another book: nothing to refuse.
            var request = BatchDeleteRequest(objectIDs: [first.objectID])
            request.resultType = .count
            #expect(try context.execute(request).count == 1)
            // The last book of each series would leave it with none: refused, as Core Data reports it.
            let error = try #require(throws: ObjectStackError.self) {
                try context.execute(BatchDeleteRequest(objectIDs: [second.objectID, only.objectID]))
            }
            #expect(error.code == .validationFailed)
            #expect(error.message.contains("mandatory OTO nullify inverse on Book/series"), "\(error.message)")
            #expect(Set(error.validationFailures.map(\.objectID)) == [saga.objectID], "the first refusal found")
            #expect(try context.count("Book") == 2, "nothing deleted")
        }
    }

    @Test(
        "a one-to-one whose inverse is required is cleared, not refused: no source shows Core Data refusing it",
        arguments: StoreType.allCases)
    func requiredToOneInverse(kind: StoreType) throws {
        let stack = try TestStack(kind, model: BatchModels.requiredInverses())
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let seat = try context.insertNewObject(forEntityName: "Seat")
            let ticket = try context.insertNewObject(forEntityName: "Ticket")
            try ticket.setValue(seat, forKey: "seat")
            try context.save()
            var request = BatchDeleteRequest(objectIDs: [ticket.objectID])
            request.resultType = .count
            #expect(try context.execute(request).count == 1)
            #expect(try context.storedValues(seat.objectID, ["ticket"])["ticket"] == nil)
            #expect(try context.count("Seat") == 1)
        }
    }

    @Test(
        "deleted objects stay registered until merged; the merge removes them and the cache serves no deleted row",
        arguments: StoreType.allCases)
    func mergeRemoves(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let viewer = stack.newContext()
        let ids = try library(viewer)
        let recorder = NotificationRecorder(viewer, names: [ManagedObjectContext.objectsDidChangeNotification])
        let books = viewer.performAndWait { ids.books.map { viewer.object(with: $0) as! Book } }
        viewer.performAndWait { _ = books.map(\.title) }
        let context = stack.newContext()
        let result = try context.performAndWait { () throws in
            var request = BatchDeleteRequest(objectIDs: [ids.books[0]])
            request.resultType = .objectIDs
            return try context.execute(request)
        }
        viewer.performAndWait {
            #expect(viewer.registeredObject(for: ids.books[0]) === books[0], "left alone until merged")
        }
        // The row is gone from the cache too: a new lookup finds no such object.
        let reader = stack.newContext()
        reader.performAndWait {
            _ = #expect(throws: ObjectStackError.self) { try reader.existingObject(with: ids.books[0]) }
        }
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.changes, into: [viewer])
        viewer.performAndWait {
            #expect(viewer.registeredObject(for: ids.books[0]) == nil)
            #expect(viewer.registeredObject(for: ids.chapters[0]) == nil)
            #expect(books[1].managedObjectContext === viewer)
        }
        let deleted = recorder.objects(ManagedObjectContext.objectsDidChangeNotification, .deletedObjects)
        #expect(deleted.contains { $0.contains(books[0]) })
    }
}
