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
}
