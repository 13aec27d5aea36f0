import Foundation
import ObjectStack
import Testing

/// Objects, IDs, values and saving: the behaviour every store must give the same way.
@Suite("Objects and IDs")
struct ObjectLifecycleTests {
    @Test(
        "insert gives defaults, awakeFromInsert and a temporary ID; save gives a permanent one",
        arguments: StoreType.allCases)
    func insertAndSave(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let book = Book(context: context)
            #expect(book.objectID.isTemporaryID)
            #expect(book.isInserted && book.hasChanges && !book.isUpdated)
            #expect(book.pages == 0 && book.inPrint == true)
            let author = Author(context: context)
            #expect(author.rating == 1.5, "awakeFromInsert sets the rating")
            author.name = "Le Guin"
            book.title = "The Dispossessed"
            book.author = author
            try context.save()
            #expect(!book.objectID.isTemporaryID && !author.objectID.isTemporaryID)
            #expect(!book.isInserted && !book.hasChanges && !context.hasChanges)
            #expect(context.registeredObject(for: book.objectID) === book)
        }
        let reader = stack.newContext()
        try reader.performAndWait { () throws in
            let books = try reader.all(Book.self, "Book")
            #expect(books.map(\.title) == ["The Dispossessed"])
            #expect(books.first?.author?.name == "Le Guin")
            #expect(books.first?.author?.rating == 1.5)
        }
    }

    @Test("every attribute type round-trips through the store", arguments: StoreType.allCases)
    func attributeTypesRoundTrip(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let writer = stack.newContext()
        let published = Date(timeIntervalSince1970: 1_234_567_890.25)
        let isbn = UUID()
        try writer.performAndWait { () throws in
            let book = try writer.insertNewObject(forEntityName: "Book")
            try book.setValue("Title", forKey: "title")
            try book.setValue("Sub", forKey: "subtitle")
            try book.setValue(412, forKey: "pages")
            try book.setValue(Int16(-7), forKey: "rank")
            try book.setValue(Int64.max, forKey: "sales")
            try book.setValue(Decimal(string: "19.99")!, forKey: "price")
            try book.setValue(Float(0.5), forKey: "weight")
            try book.setValue(3.25, forKey: "score")
            try book.setValue(false, forKey: "inPrint")
            try book.setValue(published, forKey: "published")
            try book.setValue(Data([0, 1, 2, 255]), forKey: "cover")
            try book.setValue(isbn, forKey: "isbn")
            try book.setValue(URL(string: "https://example.org/b?q=1")!, forKey: "site")
            try book.setValue(["lang": "en"], forKey: "metadata")
            try writer.save()
        }
        let reader = stack.newContext()
        try reader.performAndWait { () throws in
            let book = try #require(try reader.all(Book.self, "Book").first)
            #expect(book.value(forKey: "title") as? String == "Title")
            #expect(book.value(forKey: "subtitle") as? String == "Sub")
            #expect(book.value(forKey: "pages") as? Int == 412)
            #expect(book.value(forKey: "rank") as? Int16 == -7)
            #expect(book.value(forKey: "sales") as? Int64 == Int64.max)
            #expect(book.value(forKey: "price") as? Decimal == Decimal(string: "19.99"))
            #expect(book.value(forKey: "weight") as? Float == 0.5)
            #expect(book.value(forKey: "score") as? Double == 3.25)
            #expect(book.value(forKey: "inPrint") as? Bool == false)
            #expect(book.value(forKey: "published") as? Date == published)
            #expect(book.value(forKey: "cover") as? Data == Data([0, 1, 2, 255]))
            #expect(book.value(forKey: "isbn") as? UUID == isbn)
            #expect(book.value(forKey: "site") as? URL == URL(string: "https://example.org/b?q=1"))
            #expect(book.value(forKey: "metadata") as? [String: String] == ["lang": "en"])
        }
    }

    @Test("a transient attribute is never stored", arguments: StoreType.allCases)
    func transientNotStored(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let book = Book(context: context)
            book.title = "T"
            try book.setValue("scribble", forKey: "scratch")
            #expect(book.value(forKey: "scratch") as? String == "scribble")
            try context.save()
        }
        let reader = stack.newContext()
        try reader.performAndWait { () throws in
            let book = try #require(try reader.all(Book.self, "Book").first)
            #expect(book.value(forKey: "scratch") == nil)
        }
    }

    @Test("a derived attribute is computed at save", arguments: StoreType.allCases)
    func derivedAttribute(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let author = Author(context: context)
            author.name = "A"
            for title in ["x", "y", "z"] {
                let book = Book(context: context)
                book.title = title
                book.author = author
            }
            try context.save()
            #expect(author.value(forKey: "bookCount") as? Int == 3)
            #expect(throws: ObjectStackError.self) { try author.setValue(5, forKey: "bookCount") }
        }
    }

    @Test("obtainPermanentIDs, URIs and the coordinator resolve the same object", arguments: StoreType.allCases)
    func permanentIDsAndURIs(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let author = Author(context: context)
            author.name = "N"
            let book = Book(context: context)
            book.title = "B"
            book.author = author
            let temporary = author.objectID
            try context.obtainPermanentIDs(for: [author])
            #expect(!author.objectID.isTemporaryID && author.objectID != temporary)
            #expect(author.isInserted, "obtaining an ID does not save")
            #expect(book.author === author, "references follow the new ID")
            try context.save()
            let uri = author.objectID.uriRepresentation()
            #expect(uri.scheme == "x-coredata")
            let resolved = try #require(stack.coordinator.managedObjectID(forURIRepresentation: uri))
            #expect(resolved == author.objectID)
            #expect(resolved.hashValue == author.objectID.hashValue)
            #expect(
                stack.coordinator.managedObjectID(forURIRepresentation: URL(string: "x-coredata://nope/Author/p1")!)
                    == nil)
        }
        let other = stack.newContext()
        try other.performAndWait { () throws in
            let id = try #require(try other.fetch(FetchRequest<ManagedObjectID>(entityName: "Author")).first)
            let author = try other.existingObject(with: id)
            #expect(author.value(forKey: "name") as? String == "N")
        }
    }

    @Test("changedValues and committedValues", arguments: StoreType.allCases)
    func changedAndCommittedValues(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let book = Book(context: context)
            book.title = "Old"
            book.pages = 10
            try context.save()
            #expect(book.changedValues().isEmpty)
            book.title = "New"
            #expect(book.isUpdated)
            #expect(book.changedValues().keys.sorted() == ["title"])
            #expect(book.changedValues()["title"] as? String == "New")
            #expect(book.committedValues(forKeys: ["title", "pages"])["title"] as? String == "Old")
            #expect(book.committedValues(forKeys: ["pages"])["pages"] as? Int == 10)
            book.title = "Old"
            #expect(!book.isUpdated, "setting the committed value back is no change")
        }
    }

    @Test("rollback discards inserts, deletes and updates; reset forgets everything", arguments: StoreType.allCases)
    func rollbackAndReset(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let kept = Book(context: context)
            kept.title = "Kept"
            let doomed = Book(context: context)
            doomed.title = "Doomed"
            try context.save()
            kept.title = "Changed"
            context.delete(doomed)
            let fresh = Book(context: context)
            fresh.title = "Fresh"
            context.rollback()
            #expect(kept.title == "Kept" && !kept.hasChanges)
            #expect(!doomed.isDeleted)
            #expect(fresh.managedObjectContext == nil)
            #expect(!context.hasChanges)
            #expect(try context.count("Book") == 2)
            context.reset()
            #expect(context.registeredObjects.isEmpty)
            #expect(try context.count("Book") == 2)
        }
    }

    @Test(
        "objects that outlive their context read a nil context; a second context registers them afresh",
        arguments: StoreType.allCases)
    func objectsOutliveTheirContext(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let writer = stack.newContext()
        let savedID = try writer.performAndWait { () throws -> ManagedObjectID in
            let book = Book(context: writer)
            book.title = "Saved"
            Book(context: writer).title = "Fetched"
            try writer.save()
            return book.objectID
        }
        var context: ManagedObjectContext? = stack.newContext()
        weak var released = context
        // An inserted object, a fetched fault and a materialised object: each kind of registration.
        let (inserted, fetched, found) = try context!.performAndWait { () throws -> (Book, Book, Book) in
            let inserted = Book(context: context!)
            inserted.title = "Unsaved"
            let fetched = try #require(try context!.all(Book.self, "Book").last)
            let found = try #require(try context!.existingObject(with: savedID) as? Book)
            #expect(inserted.managedObjectContext === context && found.managedObjectContext === context)
            return (inserted, fetched, found)
        }
        context = nil
        #expect(released == nil, "nothing else keeps the context")
        for object in [inserted, fetched, found] {
            #expect(object.managedObjectContext == nil, "\(object.objectID) keeps no reference to a freed context")
        }
        // The freed context let go of its rows, so another context reads the saved book as usual.
        let other = stack.newContext()
        try other.performAndWait { () throws in
            let book = try #require(try other.existingObject(with: savedID) as? Book)
            #expect(book.title == "Saved" && book !== found && book.managedObjectContext === other)
        }
    }

    @Test(
        "faults fire on first access; refresh without merging turns an object back into a fault",
        arguments: StoreType.allCases)
    func faulting(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let writer = stack.newContext()
        try writer.performAndWait { () throws in
            let book = Book(context: writer)
            book.title = "Faulty"
            try writer.save()
        }
        let reader = stack.newContext()
        try reader.performAndWait { () throws in
            let book = try #require(try reader.all(Book.self, "Book").first)
            #expect(book.isFault)
            #expect(book.title == "Faulty")
            #expect(!book.isFault)
            book.title = "Changed"
            reader.refresh(book, mergeChanges: false)
            #expect(book.isFault && !book.hasChanges)
            #expect(book.title == "Faulty")
            var eager = FetchRequest<Book>(entityName: "Book")
            eager.returnsObjectsAsFaults = false
            reader.reset()
            let unfaulted = try reader.fetch(eager)
            #expect(unfaulted.allSatisfy { !$0.isFault })
        }
    }

    @Test(
        "a fetched fault fires with the row the coordinator holds when it fires, not the one its fetch read",
        arguments: StoreType.allCases)
    func faultFiresFromCurrentRow(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let writer = stack.newContext()
        try writer.performAndWait { () throws in
            for title in ["One", "Two"] { Book(context: writer).title = title }
            try writer.save()
        }
        let reader = stack.newContext()
        let faults = try reader.performAndWait { try reader.all(Book.self, "Book", where: "title == %@", "One") }
        #expect(faults.count == 1 && faults.allSatisfy(\.isFault))
        // A second fetch of the same rows, and a save of an unrelated row, leave the fault's row current.
        let again = try reader.performAndWait { try reader.all(Book.self, "Book") }
        #expect(again.count == 2)
        try writer.performAndWait { () throws in
            let one = try #require(try writer.fetch(FetchRequest<Book>(entityName: "Book")).first { $0.title == "One" })
            one.title = "One, revised"
            try writer.save()
        }
        try reader.performAndWait { () throws in
            #expect(faults[0].isFault)
            #expect(faults[0].title == "One, revised", "the writer's save reached the row cache before the fault fired")
        }
    }

    @Test("an object deleted elsewhere reads as nil when its fault fires", arguments: StoreType.allCases)
    func inaccessibleFault(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        let id = try context.performAndWait { () throws in
            let book = Book(context: context)
            book.title = "Gone"
            try context.save()
            return book.objectID
        }
        let other = try stack.separateStack().newContext()
        let fault = other.performAndWait { other.object(with: id) }
        try context.performAndWait { () throws in
            context.delete(try context.existingObject(with: id))
            try context.save()
        }
        try other.performAndWait { () throws in
            #expect(fault.value(forKey: "title") == nil)
        }
        #expect(throws: ObjectStackError.self) { try other.performAndWait { try other.existingObject(with: id) } }
    }
}
