import Foundation
import ObjectStack
import Testing

/// The save's one pass over its objects: new objects keyed in the order they were made, whatever else changed
/// the inserted set first; rows as the objects held them; versions the next save checks against.
@Suite("Save pass")
struct SavePassTests {
    /// What happens to the inserted set before the save.
    enum Interleaving: String, CaseIterable, CustomTestStringConvertible {
        case insertsOnly, deleteOneFirst, undoOneInsert, processedBetween, idReadBeforeInsert, someKeyedEarly
        var testDescription: String { rawValue }
    }

    @Test(
        "new objects get keys in the order they were made and their rows hold their values",
        arguments: StoreType.allCases, Interleaving.allCases)
    func keysFollowCreation(kind: StoreType, interleaving: Interleaving) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        if interleaving == .undoOneInsert { context.performAndWait { context.undoManager = ObjectUndoManager() } }
        let expected = try context.performAndWait { () throws -> [String] in
            // A book made outside the context and given its ID first is the earliest: its temporary key is.
            let early = Book(entity: stack.model.entitiesByName["Book"]!, insertInto: nil)
            if interleaving == .idReadBeforeInsert { _ = early.objectID }
            var made: [(String, Book)] = []
            for number in 0..<8 {
                let book = Book(context: context)
                book.title = "b\(number)"
                book.pages = number
                made.append(("b\(number)", book))
                if interleaving == .processedBetween, number == 3 { context.processPendingChanges() }
            }
            early.title = "early"
            context.insert(early)
            made.insert(("early", early), at: interleaving == .idReadBeforeInsert ? 0 : made.count)
            switch interleaving {
            case .deleteOneFirst:
                context.delete(made[2].1)
                made.remove(at: 2)
            case .undoOneInsert:
                context.processPendingChanges()
                let late = Book(context: context)
                late.title = "undone"
                context.processPendingChanges()
                context.undoManager?.undo()
                #expect(!context.insertedObjects.contains(late))
            case .someKeyedEarly:
                try context.obtainPermanentIDs(for: [made[5].1, made[6].1])
                // Those two have their keys now; the others follow them.
                let keyed = [made[5], made[6]]
                made.removeSubrange(5...6)
                made.insert(contentsOf: keyed, at: 0)
            default:
                break
            }
            try context.save()
            let keys = made.map { $0.1.objectID.primaryKey ?? -1 }
            #expect(keys == keys.sorted(), "keys in creation order: \(zip(made.map(\.0), keys).map { "\($0)=\($1)" })")
            #expect(Set(keys).count == keys.count)
            return made.map(\.0)
        }
        let reader = try stack.separateStack().newContext()
        try reader.performAndWait { () throws in
            var request = FetchRequest<Book>(entityName: "Book")
            request.sortDescriptors = [SortKey("pages"), SortKey("title")]
            let books = try reader.fetch(request)
            #expect(Set(books.map(\.title)) == Set(expected))
            #expect(books.count == expected.count)
            for book in books where book.title != "early" { #expect(book.title == "b\(book.pages)") }
            let byKey = books.sorted { $0.objectID.primaryKey! < $1.objectID.primaryKey! }.map(\.title)
            #expect(byKey == expected)
        }
    }

    @Test(
        "each saved update moves the row's version by one, so the next save from either stack checks against it",
        arguments: StoreType.allCases)
    func versionsAfterUpdates(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        let id = try context.performAndWait { () throws -> ManagedObjectID in
            let book = Book(context: context)
            book.title = "v"
            try context.save()
            for pages in 1...3 {
                book.pages = pages
                try context.save()
            }
            return book.objectID
        }
        // Another stack reads the row at its latest version and saves over it: no conflict.
        let other = try stack.separateStack().newContext()
        try other.performAndWait { () throws in
            let book = other.materialized(id, as: Book.self)
            #expect(book.pages == 3)
            book.pages = 4
            try other.save()
        }
        // The first context still holds the version before that save: its next save conflicts.
        try context.performAndWait { () throws in
            let book = try #require(context.registeredObject(for: id) as? Book)
            book.pages = 5
            let error = try #require(throws: ObjectStackError.self) { try context.save() }
            // The insert wrote version 1 and each of the three updates one more; the other stack's save made 5.
            #expect(error.code == .mergeConflict)
            #expect(error.mergeConflicts.map(\.cachedVersion) == [4])
            #expect(error.mergeConflicts.map(\.storeVersion) == [5])
        }
    }

    @Test("an entity of more than 64 properties keeps each value apart, set or cleared", arguments: StoreType.allCases)
    func manyProperties(kind: StoreType) throws {
        let names = (0..<70).map { "a\($0)" }
        let model = try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Wide", attributes: names.map { AttributeDescription(name: $0, type: .string) })
        ])
        let stack = try TestStack(kind, model: model)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let wide = try context.insertNewObject(forEntityName: "Wide")
            for name in ["a1", "a63", "a64", "a65", "a69"] { try wide.setValue("value of \(name)", forKey: name) }
            try wide.setValue(nil, forKey: "a65")
            #expect(Set(wide.changedValues().keys) == ["a1", "a63", "a64", "a65", "a69"])
            try context.save()
            #expect(wide.changedValues().isEmpty)
        }
        let reader = try stack.separateStack().newContext()
        try reader.performAndWait { () throws in
            let wide = try #require(try reader.fetch(FetchRequest<ManagedObject>(entityName: "Wide")).first)
            for name in names {
                let expected: String? = ["a1", "a63", "a64", "a69"].contains(name) ? "value of \(name)" : nil
                #expect(wide.value(forKey: name) as? String == expected, "\(name)")
            }
            try wide.setValue("changed", forKey: "a66")
            #expect(Set(wide.changedValues().keys) == ["a66"])
            try reader.save()
        }
        let again = try stack.separateStack().newContext()
        try again.performAndWait { () throws in
            let wide = try #require(try again.fetch(FetchRequest<ManagedObject>(entityName: "Wide")).first)
            #expect(wide.value(forKey: "a66") as? String == "changed")
            #expect(wide.value(forKey: "a69") as? String == "value of a69")
        }
    }

    /// Three stored attributes and nothing else: the entity whose update's changes are kept over its committed row.
    private static func noteModel() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Note",
                attributes: [
                    AttributeDescription(name: "title", type: .string),
                    AttributeDescription(name: "body", type: .string),
                    AttributeDescription(name: "count", type: .integer64),
                ])
        ])
    }

    /// What happens to an updated object's committed row before its save.
    enum CommittedRowChange: String, CaseIterable, CustomTestStringConvertible {
        case none, valueSetBack, refreshedWithChanges, mergedAtSave
        var testDescription: String { rawValue }
    }

    @Test(
        "an update writes the committed row with its changes over it, whatever replaced that row before the save",
        arguments: StoreType.allCases, CommittedRowChange.allCases)
    func updatedRow(kind: StoreType, change: CommittedRowChange) throws {
        let stack = try TestStack(kind, model: Self.noteModel())
        let context = stack.newContext()
        let id = try context.performAndWait { () throws -> ManagedObjectID in
            let note = try context.insertNewObject(forEntityName: "Note")
            for (key, value) in [("title", "t0"), ("body", "b0")] as [(String, Any)] {
                try note.setValue(value, forKey: key)
            }
            try note.setValue(Int64(1), forKey: "count")
            try context.save()
            return note.objectID
        }
        // Another stack changes the body under the first context's committed row.
        func otherSavesBody() throws {
            let other = try stack.separateStack().newContext()
            try other.performAndWait { () throws in
                let note = try #require(try other.existingObject(with: id))
                try note.setValue("b1", forKey: "body")
                try other.save()
            }
        }
        try context.performAndWait { () throws in
            let note = try #require(context.registeredObject(for: id))
            try note.setValue("t1", forKey: "title")
            try note.setValue(Int64(2), forKey: "count")
            switch change {
            case .none:
                break
            case .valueSetBack:
                try note.setValue(Int64(1), forKey: "count")
                #expect(Set(note.changedValues().keys) == ["title"])
            case .refreshedWithChanges:
                try otherSavesBody()
                context.refresh(note, mergeChanges: true)
                #expect(note.value(forKey: "body") as? String == "b1")
                try note.setValue("t2", forKey: "title")
            case .mergedAtSave:
                try otherSavesBody()
                context.mergePolicy = .mergeByPropertyObjectTrump
            }
            try context.save()
        }
        let expected =
            switch change {
            case .none: "t1/b0/2"
            case .valueSetBack: "t1/b0/1"
            case .refreshedWithChanges: "t2/b1/2"
            case .mergedAtSave: "t1/b1/2"
            }
        let reader = try stack.separateStack().newContext()
        try reader.performAndWait { () throws in
            let note = try #require(try reader.existingObject(with: id))
            let row = ["title", "body", "count"].map { "\(note.value(forKey: $0) ?? "-")" }.joined(separator: "/")
            #expect(row == expected)
        }
    }

    /// Which objects one save updates.
    enum UpdatedKeys: String, CaseIterable, CustomTestStringConvertible {
        /// Every book: keys one after another.
        case dense
        /// Every fifth book: keys far apart.
        case sparse
        /// Every book and every author: two entities whose keys are the same numbers.
        case sharedKeys
        var testDescription: String { rawValue }
    }

    @Test(
        "one save's updates all reach the store, whether their keys are dense, sparse or shared by two entities",
        arguments: StoreType.allCases, UpdatedKeys.allCases)
    func updatesInKeyOrder(kind: StoreType, keys: UpdatedKeys) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        let count = 400
        try context.performAndWait { () throws in
            for number in 0..<count {
                let book = Book(context: context)
                book.title = "b\(number)"
                let author = Author(context: context)
                author.name = "a\(number)"
            }
            try context.save()
            let books = try context.all(Book.self, "Book")
            let authors = try context.all(Author.self, "Author")
            #expect(books.count == count && authors.count == count)
            for book in books where keys != .sparse || (book.objectID.primaryKey ?? 0) % 5 == 0 {
                book.pages = Int(book.objectID.primaryKey ?? -1)
            }
            if keys == .sharedKeys {
                for author in authors { author.rating = Double(author.objectID.primaryKey ?? -1) }
            }
            try context.save()
        }
        let reader = try stack.separateStack().newContext()
        try reader.performAndWait { () throws in
            for book in try reader.all(Book.self, "Book") {
                let key = Int(book.objectID.primaryKey ?? -1)
                let updated = keys != .sparse || key % 5 == 0
                #expect(book.pages == (updated ? key : 0), "book \(key)")
            }
            for author in try reader.all(Author.self, "Author") {
                let key = Double(author.objectID.primaryKey ?? -1)
                #expect(author.rating == (keys == .sharedKeys ? key : 1.5), "author \(key)")
            }
        }
    }
}
