import Foundation
import ObjectStack
import Testing

/// A context's undo manager on every store: what it records (inserts, deletes, attributes, both sides of
/// relationships, delete rules), how changes group, and undo after a save, as Core Data behaves.
@Suite("Undo")
struct UndoTests {
    /// A stack with an author of two books (one saved), and a context with an undo manager set afterwards, so
    /// the seeding is not undoable.
    static func seeded(_ kind: StoreType) throws -> (TestStack, ManagedObjectContext, ObjectUndoManager) {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        let undo = ObjectUndoManager()
        try context.performAndWait {
            let author = Author(context: context)
            author.name = "Herbert"
            for title in ["Dune", "Messiah"] {
                let book = Book(context: context)
                book.title = title
                book.author = author
            }
            try context.save()
            context.undoManager = undo
        }
        return (stack, context, undo)
    }

    static func book(_ context: ManagedObjectContext, _ title: String) throws -> Book {
        try #require(try context.all(Book.self, "Book", where: "title == %@", title).first)
    }

    /// The titles of the books a fresh context reads from the store.
    static func storedTitles(_ stack: TestStack) throws -> [String] {
        let context = stack.newContext()
        return try context.performAndWait {
            try context.all(Book.self, "Book").map(\.title).sorted()
        }
    }

    @Test(
        "an attribute change is undone and redone; undoing back to the saved value leaves no change",
        arguments: StoreType.allCases)
    func attribute(kind: StoreType) throws {
        let (_, context, undo) = try Self.seeded(kind)
        try context.performAndWait {
            let dune = try Self.book(context, "Dune")
            dune.title = "Dune Messiah"
            dune.pages = 412
            context.processPendingChanges()
            #expect(undo.canUndo)
            context.undo()
            #expect(dune.title == "Dune" && dune.pages == 0)
            #expect(!context.hasChanges)
            #expect(undo.canRedo)
            context.redo()
            #expect(dune.title == "Dune Messiah" && dune.pages == 412)
            #expect(context.updatedObjects == [dune])
        }
    }

    @Test(
        "undo() records the pending changes first and undoes them; redo is gone once a change is made",
        arguments: StoreType.allCases)
    func pending(kind: StoreType) throws {
        let (_, context, undo) = try Self.seeded(kind)
        try context.performAndWait {
            let dune = try Self.book(context, "Dune")
            dune.pages = 1
            context.processPendingChanges()
            dune.pages = 2
            context.undo()
            #expect(dune.pages == 1)
            context.undo()
            #expect(dune.pages == 0)
            context.redo()
            #expect(dune.pages == 1)
            dune.pages = 5
            #expect(!undo.canRedo)
            context.redo()
            #expect(dune.pages == 5)
            context.undo()
            #expect(dune.pages == 1)
        }
    }

    @Test(
        "each processPendingChanges cycle is one undo step; an explicit group joins several",
        arguments: StoreType.allCases)
    func grouping(kind: StoreType) throws {
        let (_, context, undo) = try Self.seeded(kind)
        try context.performAndWait {
            let dune = try Self.book(context, "Dune")
            dune.pages = 1
            context.processPendingChanges()
            dune.pages = 2
            context.processPendingChanges()
            undo.beginUndoGrouping()
            dune.pages = 3
            context.processPendingChanges()
            dune.pages = 4
            context.processPendingChanges()
            undo.endUndoGrouping()
            context.processPendingChanges()
            context.undo()
            #expect(dune.pages == 2)
            context.undo()
            #expect(dune.pages == 1)
            context.undo()
            #expect(dune.pages == 0)
            #expect(!undo.canUndo)
        }
    }

    @Test(
        "an insert is undone (the object leaves, observers see it deleted) and redone with its values",
        arguments: StoreType.allCases)
    func insert(kind: StoreType) throws {
        let (stack, context, _) = try Self.seeded(kind)
        let recorder = NotificationRecorder(context, names: [ManagedObjectContext.objectsDidChangeNotification])
        try context.performAndWait {
            let herbert = try #require(try context.all(Author.self, "Author").first)
            let book = Book(context: context)
            book.title = "Children of Dune"
            book.author = herbert
            context.processPendingChanges()
            context.undo()
            #expect(context.insertedObjects.isEmpty)
            #expect(book.managedObjectContext == nil)
            #expect(herbert.books.map(\.title).sorted() == ["Dune", "Messiah"])
            #expect(!context.hasChanges)
            let last = recorder.objects(ManagedObjectContext.objectsDidChangeNotification, .deletedObjects).last
            #expect(last == [book])
            context.redo()
            #expect(context.insertedObjects == [book])
            #expect(book.title == "Children of Dune" && book.author == herbert)
            #expect(herbert.books.count == 3)
            try context.save()
        }
        #expect(try Self.storedTitles(stack) == ["Children of Dune", "Dune", "Messiah"])
    }

    @Test("a delete and what its rules changed (cascade, nullify) are undone together", arguments: StoreType.allCases)
    func deleteWithRules(kind: StoreType) throws {
        let (stack, context, _) = try Self.seeded(kind)
        let recorder = NotificationRecorder(context, names: [ManagedObjectContext.objectsDidChangeNotification])
        try context.performAndWait {
            let herbert = try #require(try context.all(Author.self, "Author").first)
            let agent = Agent(context: context)
            agent.name = "Agent"
            agent.client = herbert
            context.processPendingChanges()
            let books = herbert.books
            context.delete(herbert)
            context.processPendingChanges()
            #expect(context.deletedObjects == Set(books).union([herbert]))
            #expect(agent.client == nil)
            context.undo()
            #expect(context.deletedObjects.isEmpty)
            #expect(agent.client == herbert && herbert.agent == agent)
            #expect(herbert.books == books)
            let inserted = recorder.objects(ManagedObjectContext.objectsDidChangeNotification, .insertedObjects).last
            #expect(inserted == Set(books).union([herbert]))
            try context.save()
        }
        #expect(try Self.storedTitles(stack) == ["Dune", "Messiah"])
    }

    @Test("a relationship change is undone on both sides of the inverse", arguments: StoreType.allCases)
    func relationship(kind: StoreType) throws {
        let (stack, context, _) = try Self.seeded(kind)
        try context.performAndWait {
            let herbert = try #require(try context.all(Author.self, "Author").first)
            let guin = Author(context: context)
            guin.name = "Le Guin"
            let tag = Tag(context: context)
            tag.name = "classic"
            context.processPendingChanges()
            let dune = try Self.book(context, "Dune")
            dune.author = guin
            dune.tags = [tag]
            context.processPendingChanges()
            #expect(guin.books == [dune] && tag.books == [dune])
            context.undo()
            #expect(dune.author == herbert)
            #expect(herbert.books.contains(dune) && guin.books.isEmpty)
            #expect(dune.tags.isEmpty && tag.books.isEmpty)
            context.redo()
            #expect(dune.author == guin && tag.books == [dune])
            try context.save()
        }
        let fresh = stack.newContext()
        try fresh.performAndWait {
            let dune = try Self.book(fresh, "Dune")
            #expect(dune.author?.name == "Le Guin")
            #expect(dune.tags.map(\.name) == ["classic"])
        }
    }

    @Test(
        "undo after a save makes the context dirty again; saving writes the undone state", arguments: StoreType.allCases
    )
    func afterSave(kind: StoreType) throws {
        let (stack, context, undo) = try Self.seeded(kind)
        try context.performAndWait {
            let dune = try Self.book(context, "Dune")
            dune.title = "Arrakis"
            context.processPendingChanges()
            try context.save()
            #expect(!context.hasChanges)
            #expect(undo.canUndo)
            context.undo()
            #expect(dune.title == "Dune")
            #expect(context.hasChanges && context.updatedObjects == [dune])
            try context.save()
        }
        #expect(try Self.storedTitles(stack) == ["Dune", "Messiah"])
    }

    @Test(
        "undoing a saved insert deletes the object; undoing a saved delete inserts it again",
        arguments: StoreType.allCases)
    func insertAndDeleteAfterSave(kind: StoreType) throws {
        let (stack, context, _) = try Self.seeded(kind)
        try context.performAndWait {
            let book = Book(context: context)
            book.title = "Heretics"
            context.processPendingChanges()
            try context.save()
            context.undo()
            #expect(book.isDeleted && context.deletedObjects == [book])
            try context.save()
        }
        #expect(try Self.storedTitles(stack) == ["Dune", "Messiah"])
        try context.performAndWait {
            let messiah = try Self.book(context, "Messiah")
            let herbert = try #require(messiah.author)
            context.delete(messiah)
            context.processPendingChanges()
            try context.save()
            #expect(messiah.managedObjectContext == nil)
            context.undo()
            #expect(context.insertedObjects == [messiah])
            #expect(messiah.title == "Messiah" && messiah.author == herbert && herbert.books.contains(messiah))
            try context.save()
        }
        #expect(try Self.storedTitles(stack) == ["Dune", "Messiah"])
        let fresh = stack.newContext()
        let author = try fresh.performAndWait { try Self.book(fresh, "Messiah").author?.name }
        #expect(author == "Herbert")
    }

    @Test("rollback and reset empty the undo stack; a transient attribute is undoable", arguments: StoreType.allCases)
    func clearing(kind: StoreType) throws {
        let (_, context, undo) = try Self.seeded(kind)
        try context.performAndWait {
            let dune = try Self.book(context, "Dune")
            dune.setValue("note", forKeyPathForTesting: "scratch")
            context.processPendingChanges()
            context.undo()
            #expect(dune.value(forKey: "scratch") == nil)
            dune.title = "X"
            context.processPendingChanges()
            context.rollback()
            #expect(!undo.canUndo && !undo.canRedo)
            dune.title = "Y"
            context.processPendingChanges()
            context.reset()
            #expect(!undo.canUndo)
        }
    }

    @Test(
        "changes made with registration disabled (processed before enabling) are not undoable",
        arguments: StoreType.allCases)
    func disabledRegistration(kind: StoreType) throws {
        let (_, context, undo) = try Self.seeded(kind)
        try context.performAndWait {
            let dune = try Self.book(context, "Dune")
            dune.pages = 10
            context.processPendingChanges()
            undo.disableUndoRegistration()
            dune.title = "Quiet"
            context.processPendingChanges()
            undo.enableUndoRegistration()
            context.undo()
            #expect(dune.pages == 0)
            #expect(dune.title == "Quiet")
            #expect(!undo.canUndo)
        }
    }

    @Test(
        "without an undo manager nothing is recorded; a child's save is undoable in its parent",
        arguments: StoreType.allCases)
    func childSave(kind: StoreType) throws {
        let (_, context, undo) = try Self.seeded(kind)
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = context
        try child.performAndWait {
            #expect(child.undoManager == nil)
            let dune = try Self.book(child, "Dune")
            dune.pages = 99
            child.undo()
            #expect(dune.pages == 99)
            try child.save()
        }
        try context.performAndWait {
            let dune = try Self.book(context, "Dune")
            #expect(dune.pages == 99)
            #expect(undo.canUndo)
            context.undo()
            #expect(dune.pages == 0)
        }
    }

    @Test("action names and levelsOfUndo apply to a context's steps", arguments: StoreType.allCases)
    func namesAndLevels(kind: StoreType) throws {
        let (_, context, undo) = try Self.seeded(kind)
        undo.levelsOfUndo = 2
        try context.performAndWait {
            let dune = try Self.book(context, "Dune")
            for pages in 1...3 {
                dune.pages = pages
                undo.setActionName("Pages \(pages)")
                context.processPendingChanges()
            }
            #expect(undo.undoActionName == "Pages 3")
            context.undo()
            #expect(undo.redoActionName == "Pages 3")
            context.undo()
            #expect(dune.pages == 1)
            #expect(!undo.canUndo)
        }
    }
}

extension ManagedObject {
    /// Sets a value whose key is known to exist (a test's transient attribute).
    func setValue(_ value: Any?, forKeyPathForTesting key: String) {
        try? setValue(value, forKey: key)
    }
}
