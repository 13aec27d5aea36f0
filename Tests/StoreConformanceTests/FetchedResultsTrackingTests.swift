import Foundation
import ObjectStack
import Testing

/// When a fetched results controller tracks changes and whom it tells (issue 37, items 7–9), as Core Data's
/// `NSFetchedResultsController` documents it.
@Suite("Core Data semantics: fetched results controller tracking")
struct FetchedResultsTrackingTests {
    /// A context with saved books titled as given, and an unsectioned controller on them by title (fetched).
    private func controller(_ kind: StoreType, _ titles: [String], delegate: (any FetchedResultsControllerDelegate)?)
        throws -> (TestStack, ManagedObjectContext, FetchedResultsController<Book>)
    {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        var request = FetchRequest<Book>(entityName: "Book")
        request.sortDescriptors = [SortKey("title")]
        let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context)
        controller.delegate = delegate
        try context.performAndWait {
            for title in titles { Book(context: context).title = title }
            try context.save()
            try controller.performFetch()
        }
        return (stack, context, controller)
    }

    // MARK: - 7. No delegate, no tracking

    /// `NSFetchedResultsController.delegate`: "If you do not specify a delegate, the controller does not track
    /// changes to managed objects associated with its managed object context."
    @Test(
        "without a delegate the controller does not track changes: its results stay as performFetch() left them",
        arguments: StoreType.allCases)
    func noDelegateNoTracking(kind: StoreType) throws {
        let (stack, context, controller) = try controller(kind, ["a", "b", "c"], delegate: nil)
        let fetched = try #require(context.performAndWait { controller.fetchedObjects })
        let other = stack.newContext()
        let saves = NotificationRecorder(other, names: [ManagedObjectContext.didSaveNotification])
        try other.performAndWait {
            Book(context: other).title = "merged"
            try other.save()
        }
        let note = try #require(saves.all.last)
        try context.performAndWait {
            Book(context: context).title = "new"
            fetched[0].title = "z"
            context.delete(fetched[1])
            context.processPendingChanges()
            context.mergeChanges(fromContextDidSave: note)
            let now = try #require(controller.fetchedObjects)
            #expect(now.count == 3 && zip(now, fetched).allSatisfy { $0 === $1 }, "the same objects in the same order")
            #expect(now.map(\.title) == ["z", "b", "c"], "objects change; the controller's list does not")
            #expect(controller.sections?.first?.numberOfObjects == 3)
            #expect(controller.indexPath(forObject: fetched[1]) == IndexPath(indexes: [0, 1]))

            try controller.performFetch()
            #expect(controller.fetchedObjects?.map(\.title) == ["c", "merged", "new", "z"], "a new fetch catches up")
            // A delegate set now starts the tracking.
            let recorder = FetchedResultsRecorder()
            controller.delegate = recorder
            Book(context: context).title = "d"
            context.processPendingChanges()
            #expect(controller.fetchedObjects?.map(\.title) == ["c", "d", "merged", "new", "z"])
            #expect(recorder.events.contains { if case .object(_, _, .insert, _) = $0 { true } else { false } })
        }
    }

    // MARK: - 8. reset() reports no per-object deletes

    /// Core Data sends no per-object changes when the context is reset (its `objectsDidChange` names no objects,
    /// only that all were invalidated); the app fetches again with `performFetch()`.
    @Test(
        "after the context's reset() the controller reports no deletes; performFetch() fetches again",
        arguments: StoreType.allCases)
    func resetReportsNoDeletes(kind: StoreType) throws {
        let recorder = FetchedResultsRecorder()
        let (_, context, controller) = try controller(kind, ["a", "b", "c"], delegate: recorder)
        try context.performAndWait {
            context.reset()
            #expect(recorder.take().isEmpty, "no will/did, no section or object change")
            try controller.performFetch()
            #expect(controller.fetchedObjects?.map(\.title) == ["a", "b", "c"], "a new fetch brings them back")
            #expect(recorder.take().isEmpty, "performFetch reports nothing")
            // Tracking goes on after the new fetch.
            Book(context: context).title = "bb"
            context.processPendingChanges()
            let events = recorder.take()
            #expect(
                events.count == 3 && events.contains { if case .object(_, _, .insert, _) = $0 { true } else { false } })
            #expect(controller.fetchedObjects?.map(\.title) == ["a", "b", "bb", "c"])
        }
    }

    // MARK: - 9. A snapshot delegate hears only snapshots

    /// `NSFetchedResultsControllerDelegate.controller(_:didChangeContentWith:)`: "If this method is implemented,
    /// no other delegate methods are invoked." Swift cannot see whether a protocol method is implemented, so a
    /// delegate says it by conforming to `FetchedResultsControllerSnapshotDelegate`.
    @Test(
        "a delegate that implements the snapshot callback hears only snapshots; a per-change delegate no snapshot",
        arguments: StoreType.allCases)
    func snapshotDelegateHearsOnlySnapshots(kind: StoreType) throws {
        let snapshots = FetchedResultsSnapshotRecorder()  // records per-change calls too, were there any
        let (_, context, controller) = try controller(kind, ["a", "b", "c"], delegate: snapshots)
        let perChange = FetchedResultsRecorder()
        var request = FetchRequest<Book>(entityName: "Book")
        request.sortDescriptors = [SortKey("title")]
        let second = FetchedResultsController(fetchRequest: request, managedObjectContext: context)
        second.delegate = perChange
        try context.performAndWait {
            try second.performFetch()
            let books = try #require(controller.fetchedObjects)
            Book(context: context).title = "aa"
            books[2].title = "0"
            context.delete(books[1])
            context.processPendingChanges()
            let ids = try #require(controller.fetchedObjects?.map(\.objectID))
            #expect(ids.count == 3)
            #expect(snapshots.events.count == 1, "one call per change, and only the snapshot: \(snapshots.events)")
            guard case .snapshot(let names, let items)? = snapshots.events.first else {
                Issue.record("the snapshot delegate heard \(snapshots.events)")
                return
            }
            #expect(names == [""] && items == [ids])
            let heard = perChange.take()
            #expect(!heard.contains { if case .snapshot = $0 { true } else { false } }, "\(heard)")
            #expect(heard.count == 2 + 3, "will, did, and an insert, a move and a delete: \(heard)")
        }
    }
}
