import Foundation
import ObjectStack
import Testing

/// Merging saves between contexts, merge policies on conflicts, refreshing and staleness.
@Suite("Merging and merge policies")
struct MergeTests {
    /// Saves three books ("a", "b", "c") and returns their IDs in order.
    private func seed(_ stack: TestStack) throws -> [ManagedObjectID] {
        let context = stack.newContext()
        return try context.performAndWait { () throws in
            let books = ["a", "b", "c"].map { title -> Book in
                let book = Book(context: context)
                book.title = title
                return book
            }
            try context.save()
            return books.map(\.objectID)
        }
    }

    @Test(
        "mergeChanges brings inserts, updates (keeping unsaved changes) and deletes; objectsDidChange reports updates as refreshed",
        arguments: StoreType.allCases, [false, true])
    func mergeChanges(kind: StoreType, separateCoordinators: Bool) throws {
        let stack = try TestStack(kind)
        let ids = try seed(stack)
        let receiver = stack.newContext()
        let books = try receiver.performAndWait { () throws in
            let books = ids.map { receiver.object(with: $0) as! Book }
            _ = books.map(\.title)
            books[0].pages = 42  // an unsaved change of the receiver's own
            return books
        }
        let recorder = NotificationRecorder(receiver, names: [ManagedObjectContext.objectsDidChangeNotification])
        let sender = try separateCoordinators ? stack.separateStack().newContext() : stack.newContext()
        let senderRecorder = NotificationRecorder(sender, names: [ManagedObjectContext.didSaveNotification])
        let newID = try sender.performAndWait { () throws in
            let mine = ids.map { sender.object(with: $0) as! Book }
            mine[0].title = "a, updated"
            sender.delete(mine[1])
            let fresh = Book(context: sender)
            fresh.title = "d"
            try sender.save()
            return fresh.objectID
        }
        let note = try #require(senderRecorder.all.last)
        try receiver.performAndWait { () throws in
            receiver.mergeChanges(fromContextDidSave: note)
            #expect(books[0].title == "a, updated" && books[0].pages == 42, "refreshed, own change kept")
            #expect(books[0].hasChanges)
            #expect(books[1].managedObjectContext == nil && receiver.registeredObject(for: ids[1]) == nil)
            let inserted = try #require(receiver.registeredObject(for: newID) as? Book)
            #expect(inserted.title == "d")
            let change = try #require(recorder.all.last?.userInfo)
            #expect((change["inserted"] as? Set<ManagedObject>)?.map(\.objectID) == [newID])
            #expect(
                change["refreshed"] as? Set<ManagedObject> == [books[0]],
                "a merged update is a refresh, as in Core Data")
            #expect((change["updated"] as? Set<ManagedObject> ?? []).isEmpty)
            #expect(change["refreshedObjectIDs"] as? Set<ManagedObjectID> == [ids[0]])
            #expect(change["deleted"] as? Set<ManagedObject> == [books[1]])
            #expect(try receiver.all(Book.self, "Book").map(\.title).sorted() == ["a, updated", "c", "d"])
            try receiver.save()
        }
        let reader = stack.newContext()
        try reader.performAndWait { () throws in
            let saved = try #require(try reader.all(Book.self, "Book", where: "title == 'a, updated'").first)
            #expect(saved.pages == 42, "the merged object saved without a conflict")
        }
    }

    @Test(
        "a context that merges automatically takes other contexts' saves on its coordinator",
        arguments: StoreType.allCases)
    func automaticMergeOnCoordinator(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let ids = try seed(stack)
        let viewer = stack.newContext()
        viewer.automaticallyMergesChangesFromParent = true
        let book = viewer.performAndWait { () -> Book in
            let book = viewer.object(with: ids[0]) as! Book
            _ = book.title
            return book
        }
        let writer = stack.newContext()
        try writer.performAndWait { () throws in
            (writer.object(with: ids[0]) as! Book).title = "merged automatically"
            try writer.save()
        }
        viewer.performAndWait { #expect(book.title == "merged automatically") }
    }

    /// Expected (title, subtitle, pages) in the store after each policy resolves the conflict below.
    static let policyOutcomes: [(MergePolicy, String, String?, Int)] = [
        (.mergeByPropertyObjectTrump, "Mine", "Their subtitle", 99),
        (.mergeByPropertyStoreTrump, "Theirs", "Their subtitle", 99),
        (.overwrite, "Mine", nil, 99),
        (.rollback, "Theirs", "Their subtitle", 1),
    ]

    @Test(
        "each merge policy resolves a store conflict as Core Data documents",
        arguments: StoreType.allCases, policyOutcomes.indices)
    func mergePolicies(kind: StoreType, outcome: Int) throws {
        let (policy, title, subtitle, pages) = Self.policyOutcomes[outcome]
        let stack = try TestStack(kind)
        let setup = stack.newContext()
        let id = try setup.performAndWait { () throws in
            let book = Book(context: setup)
            book.title = "Original"
            book.pages = 1
            try setup.save()
            return book.objectID
        }
        let mine = try stack.separateStack().newContext()
        mine.mergePolicy = policy
        let book = mine.performAndWait { mine.materialized(id, as: Book.self) }
        let theirs = try stack.separateStack().newContext()
        try theirs.performAndWait { () throws in
            let other = theirs.object(with: id) as! Book
            other.title = "Theirs"
            other.subtitle = "Their subtitle"
            try theirs.save()
        }
        try mine.performAndWait { () throws in
            book.title = "Mine"
            book.pages = 99
            try mine.save()
            #expect(
                book.title == title && book.subtitle == subtitle && book.pages == pages, "the object shows the outcome")
        }
        let reader = stack.newContext()
        try reader.performAndWait { () throws in
            let stored = try #require(try reader.all(Book.self, "Book").first)
            #expect(stored.title == title)
            #expect(stored.subtitle == subtitle)
            #expect(stored.pages == pages)
        }
    }

    @Test(
        "a delete of a row another stack already deleted: .error throws the conflict, a merging policy saves and reports it",
        arguments: StoreType.allCases, MergePolicy.allCases)
    func deleteOfDeletedRow(kind: StoreType, policy: MergePolicy) throws {
        let stack = try TestStack(kind)
        let ids = try seed(stack)
        let mine = try stack.separateStack().newContext()
        mine.mergePolicy = policy
        let book = mine.performAndWait { mine.materialized(ids[0], as: Book.self) }
        let theirs = try stack.separateStack().newContext()
        try theirs.performAndWait { () throws in
            theirs.delete(theirs.object(with: ids[0]))
            try theirs.save()
        }
        let recorder = NotificationRecorder(mine, names: [ManagedObjectContext.didSaveNotification])
        try mine.performAndWait { () throws in
            mine.delete(book)
            mine.materialized(ids[1], as: Book.self).pages = 7  // a bystander change saved with it
            if policy == .error {
                let error = try #require(throws: ObjectStackError.self) { try mine.save() }
                #expect(error.code == .mergeConflict)
                #expect(
                    error.mergeConflicts.map(\.objectID) == [ids[0]] && error.mergeConflicts.first?.storeVersion == nil)
                #expect(book.isDeleted && mine.hasChanges, "nothing of the failed save is lost")
            } else {
                try mine.save()
                #expect(book.managedObjectContext == nil && !mine.hasChanges)
            }
        }
        let saves = recorder.all.compactMap(ContextDidSave.init)
        if policy == .error {
            #expect(saves.isEmpty)
        } else {
            #expect(saves.count == 1)
            #expect(saves.first?.deletedObjectIDs == [ids[0]], "the delete is reported, not dropped silently")
            #expect(saves.first?.updatedObjectIDs == [ids[1]])
        }
        let reader = stack.newContext()
        try reader.performAndWait { () throws in
            #expect(try reader.all(Book.self, "Book").map(\.title) == ["b", "c"])
            #expect(try reader.count("Book", where: "pages == 7") == (policy == .error ? 0 : 1))
        }
    }

    @Test(
        "under a merging policy a new duplicate merges into the existing object",
        arguments: StoreType.allCases,
        [MergePolicy.mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump, .overwrite, .rollback])
    func constraintMerge(kind: StoreType, policy: MergePolicy) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        let existingID = try context.performAndWait { () throws in
            let tag = Tag(context: context)
            tag.name = "scifi"
            let old = Book(context: context)
            old.title = "Old"
            old.tags = [tag]
            try context.save()
            return tag.objectID
        }
        let importer = stack.newContext()
        importer.mergePolicy = policy
        try importer.performAndWait { () throws in
            let duplicate = Tag(context: importer)
            duplicate.name = "scifi"
            let new = Book(context: importer)
            new.title = "New"
            new.tags = [duplicate]
            try importer.save()
            #expect(new.tags.map(\.objectID) == [existingID], "the new book now points at the surviving tag")
        }
        let reader = stack.newContext()
        try reader.performAndWait { () throws in
            let tags = try reader.all(Tag.self, "Tag")
            #expect(tags.map(\.objectID) == [existingID])
            #expect(Set(tags[0].books.map(\.title)) == ["Old", "New"])
        }
    }

    @Test(
        "refresh with merging keeps unsaved changes over fresh values; stalenessInterval bounds cached rows",
        arguments: StoreType.allCases)
    func refreshAndStaleness(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let ids = try seed(stack)
        let mine = stack.newContext()
        let (first, second) = mine.performAndWait { () -> (Book, Book) in
            let books = (mine.object(with: ids[0]) as! Book, mine.object(with: ids[1]) as! Book)
            _ = (books.0.title, books.1.title)
            books.0.pages = 5
            return books
        }
        let other = try stack.separateStack().newContext()
        try other.performAndWait { () throws in
            (other.object(with: ids[0]) as! Book).title = "a2"
            (other.object(with: ids[1]) as! Book).title = "b2"
            try other.save()
        }
        mine.performAndWait {
            mine.refresh(first, mergeChanges: true)
            #expect(first.title == "a2" && first.pages == 5)
            mine.refresh(second, mergeChanges: false)
            #expect(second.title == "b", "with no staleness limit the fault fires from the (stale) row cache")
            mine.stalenessInterval = 3600
            mine.refresh(second, mergeChanges: false)
            #expect(second.title == "b", "a row cached a moment ago is within an hour's staleness interval")
            mine.stalenessInterval = 0
            mine.refresh(second, mergeChanges: false)
            #expect(second.title == "b2", "a zero staleness interval reads the store")
        }
    }
}
