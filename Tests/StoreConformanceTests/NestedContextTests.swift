import Foundation
import ObjectStack
import Testing

/// Parent and child contexts: saves that stop at the parent, fetches that see the parent, IDs, stacks.
@Suite("Nested contexts")
struct NestedContextTests {
    private func child(of parent: ManagedObjectContext, _ type: ManagedObjectContext.ConcurrencyType = .privateQueue)
        -> ManagedObjectContext
    {
        let child = ManagedObjectContext(concurrencyType: type)
        child.parent = parent
        return child
    }

    @Test("a child's save reaches its parent only; the parent's save reaches the store", arguments: StoreType.allCases)
    func childSaveStopsAtParent(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let parent = stack.newContext()
        let child = child(of: parent)
        let reader = stack.newContext()
        try child.performAndWait { () throws in
            let book = Book(context: child)
            book.title = "From the child"
            try child.save()
            #expect(!child.hasChanges)
            #expect(book.objectID.isTemporaryID, "a child's save gives no permanent ID")
        }
        try parent.performAndWait { () throws in
            #expect(parent.hasChanges && parent.insertedObjects.count == 1)
            #expect(try parent.all(Book.self, "Book").map(\.title) == ["From the child"])
        }
        try reader.performAndWait { () throws in #expect(try reader.count("Book") == 0, "the store is unchanged") }
        try parent.performAndWait { () throws in try parent.save() }
        try reader.performAndWait { () throws in
            #expect(try reader.all(Book.self, "Book").map(\.title) == ["From the child"])
        }
    }

    @Test("a child fetches through its parent's unsaved inserts, updates and deletes", arguments: StoreType.allCases)
    func childSeesParentState(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let parent = stack.newContext()
        try parent.performAndWait { () throws in
            for title in ["kept", "changed", "deleted"] {
                let book = Book(context: parent)
                book.title = title
            }
            try parent.save()
            let books = try parent.all(Book.self, "Book")
            books[1].title = "changed in parent"
            parent.delete(books[2])
            let fresh = Book(context: parent)
            fresh.title = "inserted in parent"
        }
        let child = child(of: parent)
        try child.performAndWait { () throws in
            var request = FetchRequest<Book>(entityName: "Book")
            request.sortDescriptors = [SortKey("title")]
            let fetchedTitles = try child.fetch(request).map(\.title)
            #expect(fetchedTitles == ["changed in parent", "inserted in parent", "kept"])
            #expect(try child.count("Book", where: "title BEGINSWITH 'changed'") == 1)
        }
    }

    @Test(
        "new objects of a child get permanent IDs when the root saves, or from obtainPermanentIDs",
        arguments: StoreType.allCases)
    func permanentIDsReachChildren(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let root = stack.newContext()
        let child = child(of: root)
        let (book, early) = try child.performAndWait { () throws in
            let book = Book(context: child)
            book.title = "Late ID"
            let early = Book(context: child)
            early.title = "Early ID"
            try child.obtainPermanentIDs(for: [early])
            #expect(!early.objectID.isTemporaryID)
            try child.save()
            #expect(book.objectID.isTemporaryID)
            return (book, early)
        }
        try root.performAndWait { () throws in
            #expect(root.registeredObject(for: early.objectID)?.isInserted == true)
            try root.save()
        }
        child.performAndWait {
            #expect(!book.objectID.isTemporaryID, "the root's save gave the child's object its permanent ID")
            #expect(child.registeredObject(for: book.objectID) === book)
        }
        let reader = stack.newContext()
        try reader.performAndWait { () throws in
            #expect(Set(try reader.all(Book.self, "Book").map(\.objectID)) == [book.objectID, early.objectID])
        }
    }

    @Test("a delete in a child reaches the parent, then the store", arguments: StoreType.allCases)
    func childDelete(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let root = stack.newContext()
        let id = try root.performAndWait { () throws in
            let author = Author(context: root)
            author.name = "Doomed"
            let book = Book(context: root)
            book.title = "Cascaded"
            book.author = author
            try root.save()
            return author.objectID
        }
        let child = child(of: root)
        try child.performAndWait { () throws in
            child.delete(child.object(with: id))
            try child.save()
        }
        try root.performAndWait { () throws in
            #expect(root.registeredObject(for: id)?.isDeleted == true)
            #expect(root.deletedObjects.count == 2, "the cascade reached the book too")
            try root.save()
            #expect(try root.count("Author") == 0 && root.count("Book") == 0)
        }
    }

    @Test(
        "a child that merges automatically is refreshed when its parent saves or a sibling saves into it",
        arguments: StoreType.allCases)
    func automaticMergeFromParent(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let root = stack.newContext()
        let id = try root.performAndWait { () throws in
            let book = Book(context: root)
            book.title = "v1"
            try root.save()
            return book.objectID
        }
        let watcher = child(of: root)
        watcher.automaticallyMergesChangesFromParent = true
        let book = watcher.performAndWait { watcher.materialized(id, as: Book.self) }
        let sibling = child(of: root)
        try sibling.performAndWait { () throws in
            (sibling.object(with: id) as! Book).title = "v2 from a sibling"
            try sibling.save()
        }
        watcher.performAndWait { #expect(book.title == "v2 from a sibling") }
        try root.performAndWait { () throws in
            (root.object(with: id) as! Book).title = "v3 from the parent"
            try root.save()
        }
        watcher.performAndWait { #expect(book.title == "v3 from the parent") }
    }

    @Test(
        "a change both the child and the parent made takes the child's value, under .error too; the parent's other changes stay",
        arguments: StoreType.allCases)
    func childWinsOverParent(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let root = stack.newContext()
        let id = try root.performAndWait { () throws in
            let book = Book(context: root)
            book.title = "Original"
            try root.save()
            return book.objectID
        }
        let child = child(of: root)
        let book = child.performAndWait { child.materialized(id, as: Book.self) }
        root.performAndWait {
            let parentBook = root.object(with: id) as! Book
            parentBook.title = "Parent"
            parentBook.subtitle = "parent only"
        }
        try child.performAndWait { () throws in
            book.title = "Child"
            book.pages = 7
            #expect(child.mergePolicy == .error)
            try child.save()  // merge policies act at the store, not between a child and its parent (Core Data)
        }
        root.performAndWait {
            let parentBook = root.object(with: id) as! Book
            #expect(parentBook.title == "Child" && parentBook.subtitle == "parent only" && parentBook.pages == 7)
        }
    }

    @Test("a three-level stack (private root, main, background child) saves end to end", arguments: StoreType.allCases)
    func threeLevelStack(kind: StoreType) async throws {
        let stack = try TestStack(kind)
        let saving = stack.newContext()
        saving.name = "saving"
        let main = ManagedObjectContext(concurrencyType: .mainQueue)
        main.name = "main"
        main.parent = saving
        let background = ManagedObjectContext(concurrencyType: .privateQueue)
        background.name = "background"
        background.parent = main
        let id = try await background.perform { () throws -> ManagedObjectID in
            let author = Author(context: background)
            author.name = "Three levels"
            let book = Book(context: background)
            book.title = "Deep"
            book.author = author
            try background.save()
            return book.objectID
        }
        let title = try await main.perform { () throws -> String in
            #expect(main.hasChanges)
            let title = (main.object(with: id) as! Book).title
            try main.save()
            return title
        }
        #expect(title == "Deep")
        let titles = try await saving.perform { () throws -> [String] in
            try saving.save()
            return try saving.all(Book.self, "Book").map(\.title)
        }
        #expect(titles == ["Deep"])
        let reader = stack.newContext()
        try reader.performAndWait { () throws in
            let book = try #require(try reader.all(Book.self, "Book").first)
            #expect(book.author?.name == "Three levels")
        }
    }
}
