import Foundation
import ObjectStack
import Testing

/// Collects the notifications one context posts.
final class NotificationRecorder: @unchecked Sendable {
    // @unchecked: `notes` is only touched under `lock`; Notification itself is not Sendable.
    private let lock = NSLock()
    private var notes: [Notification] = []
    private var tokens: [any NSObjectProtocol] = []

    init(_ context: ManagedObjectContext, names: [Notification.Name]) {
        for name in names {
            tokens.append(
                NotificationCenter.default.addObserver(forName: name, object: context, queue: nil) {
                    [unowned self] note in
                    self.lock.withLock { self.notes.append(note) }
                })
        }
    }

    deinit {
        tokens.forEach(NotificationCenter.default.removeObserver)
    }

    var all: [Notification] { lock.withLock { notes } }

    func objects(_ name: Notification.Name, _ key: ManagedObjectContext.NotificationKey) -> [Set<ManagedObject>] {
        all.filter { $0.name == name }.map { $0.userInfo?[key.rawValue] as? Set<ManagedObject> ?? [] }
    }
}

@Suite("Notifications")
struct NotificationTests {
    @Test(
        "objectsDidChange reports inserted, updated and deleted objects when changes are processed",
        arguments: StoreType.allCases)
    func objectsDidChange(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        let recorder = NotificationRecorder(context, names: [ManagedObjectContext.objectsDidChangeNotification])
        try context.performAndWait { () throws in
            let kept = Book(context: context)
            kept.title = "Kept"
            let doomed = Book(context: context)
            doomed.title = "Doomed"
            context.processPendingChanges()
            #expect(
                recorder.objects(ManagedObjectContext.objectsDidChangeNotification, .insertedObjects) == [
                    [kept, doomed]
                ])
            try context.save()
            kept.title = "Changed"
            context.delete(doomed)
            context.processPendingChanges()
            let last = try #require(recorder.all.last?.userInfo)
            #expect(last["updated"] as? Set<ManagedObject> == [kept])
            #expect(last["deleted"] as? Set<ManagedObject> == [doomed])
            #expect(last["updatedObjectIDs"] as? Set<ManagedObjectID> == [kept.objectID])
            context.processPendingChanges()
            #expect(recorder.all.count == 2, "nothing new, no notification")
        }
    }

    @Test(
        "an object changed again after each notification, save or rollback is announced and saved again",
        arguments: StoreType.allCases)
    func repeatedChanges(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        let recorder = NotificationRecorder(context, names: [ManagedObjectContext.objectsDidChangeNotification])
        try context.performAndWait { () throws in
            let book = Book(context: context)
            book.title = "First"
            let other = Book(context: context)
            other.title = "Other"
            try context.save()
            // Two values of one object, then another object, then the first again: each announced once.
            book.title = "Second"
            book.pages = 2
            other.pages = 3
            book.pages = 4
            context.processPendingChanges()
            #expect(
                recorder.objects(ManagedObjectContext.objectsDidChangeNotification, .updatedObjects).last == [
                    book, other,
                ])
            // After the notification, the same object changed again is announced again.
            book.title = "Third"
            book.pages = 5
            context.processPendingChanges()
            #expect(recorder.objects(ManagedObjectContext.objectsDidChangeNotification, .updatedObjects).last == [book])
            #expect(context.updatedObjects == [book, other])
            try context.save()
            // After a save and after a rollback, a change makes the object updated again.
            book.pages = 6
            #expect(context.updatedObjects == [book] && context.hasChanges)
            context.rollback()
            #expect(!context.hasChanges)
            book.pages = 7
            #expect(context.updatedObjects == [book])
            try context.save()
        }
        let reader = stack.newContext()
        try reader.performAndWait { () throws in
            let books = try reader.fetch(FetchRequest<Book>(entityName: "Book"))
            #expect(Set(books.map { "\($0.title):\($0.pages)" }) == ["Third:7", "Other:3"])
        }
    }

    @Test("willSave, didSave and didSaveObjectIDs carry what the save wrote", arguments: StoreType.allCases)
    func saveNotifications(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        let recorder = NotificationRecorder(
            context,
            names: [
                ManagedObjectContext.willSaveNotification, ManagedObjectContext.didSaveNotification,
                ManagedObjectContext.didSaveObjectIDsNotification,
            ])
        try context.performAndWait { () throws in
            let updated = Book(context: context)
            updated.title = "U"
            let deleted = Book(context: context)
            deleted.title = "D"
            try context.save()
            updated.title = "U2"
            context.delete(deleted)
            let inserted = Book(context: context)
            inserted.title = "I"
            try context.save()
            let names = recorder.all.map(\.name)
            #expect(
                names == [
                    ManagedObjectContext.willSaveNotification, ManagedObjectContext.didSaveNotification,
                    ManagedObjectContext.didSaveObjectIDsNotification, ManagedObjectContext.willSaveNotification,
                    ManagedObjectContext.didSaveNotification, ManagedObjectContext.didSaveObjectIDsNotification,
                ])
            let didSave = recorder.all[4]
            #expect(didSave.userInfo?["inserted"] as? Set<ManagedObject> == [inserted])
            #expect(didSave.userInfo?["updated"] as? Set<ManagedObject> == [updated])
            #expect(didSave.userInfo?["deleted"] as? Set<ManagedObject> == [deleted])
            let typed = try #require(ContextDidSave(recorder.all[5]))
            #expect(typed.insertedObjectIDs == [inserted.objectID] && !inserted.objectID.isTemporaryID)
            #expect(typed.updatedObjectIDs == [updated.objectID])
            #expect(typed.deletedObjectIDs == [deleted.objectID])
            try context.save()
            #expect(recorder.all.count == 6, "a save with no changes posts nothing")
        }
    }

    /// What the updates a save's `objectsDidChange` announces have in common with those it writes.
    enum AnnouncedUpdates: String, CaseIterable, CustomTestStringConvertible {
        /// The same objects.
        case same
        /// One announced update was set back to its committed value: the save writes fewer.
        case oneSetBack
        /// As many objects, not the same: one was announced before the save, one announced was set back.
        case sameCountOthers
        /// A `willSave()` changes another object, announced a second time within the save.
        case changedInWillSave
        var testDescription: String { rawValue }
    }

    @Test(
        "didSave and didSaveObjectIDs name exactly the updates the save wrote, whatever objectsDidChange announced",
        arguments: StoreType.allCases, AnnouncedUpdates.allCases)
    func savedUpdateIDs(kind: StoreType, announced: AnnouncedUpdates) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        let recorder = NotificationRecorder(
            context,
            names: [
                ManagedObjectContext.objectsDidChangeNotification, ManagedObjectContext.didSaveNotification,
                ManagedObjectContext.didSaveObjectIDsNotification,
            ])
        try context.performAndWait { () throws in
            let books = (0..<3).map { number in
                let book = Book(context: context)
                book.title = "b\(number)"
                return book
            }
            try context.save()
            let expected: Set<ManagedObject>
            switch announced {
            case .same:
                books[0].pages = 1
                books[1].pages = 1
                expected = [books[0], books[1]]
            case .oneSetBack:
                books[0].pages = 1
                books[1].pages = 1
                books[1].pages = 0
                expected = [books[0]]
            case .sameCountOthers:
                books[2].pages = 1
                context.processPendingChanges()
                books[0].pages = 1
                books[1].pages = 1
                books[1].pages = 0
                expected = [books[2], books[0]]
            case .changedInWillSave:
                books[0].pages = 1
                books[1].pages = 1
                expected = [books[0], books[1], books[2]]
            }
            // An observer of willSave changes one more book: the save announces it on its own.
            nonisolated(unsafe) let late = books[2]
            let token = NotificationCenter.default.addObserver(
                forName: ManagedObjectContext.willSaveNotification, object: context, queue: nil
            ) { _ in if announced == .changedInWillSave { late.pages = 7 } }
            defer { NotificationCenter.default.removeObserver(token) }
            try context.save()
            let ids = Set(expected.map(\.objectID))
            let didSave = try #require(recorder.all.last { $0.name == ManagedObjectContext.didSaveNotification })
            #expect(didSave.userInfo?["updated"] as? Set<ManagedObject> == expected)
            #expect(ContextDidSave(didSave)?.updatedObjectIDs == ids)
            let idsOnly = try #require(recorder.all.last)
            #expect(ContextDidSave(idsOnly)?.updatedObjectIDs == ids)
        }
    }
}
