import Foundation
import ObjectStack
import Testing

/// The fetched results controller: its results against fresh fetches, and its reported changes against a
/// table view's batch-update rules, on every store.
@Suite("Fetched results controller")
struct FetchedResultsControllerTests {
    /// Seeds of the random sequences; a failure names its seed and step, so it can be replayed.
    static let seeds: [UInt64] = [1, 2, 3]
    static let steps = 1_000

    @Test(
        "random inserts, updates, deletes, saves, merges and child saves: equal to a fresh fetch after every step, and the reported changes turn the old results into the new",
        arguments: StoreType.allCases)
    func randomSequence(kind: StoreType) throws {
        for seed in Self.seeds {
            let run = try FetchedResultsRandomRun(kind, seed: seed)
            for step in 0..<Self.steps {
                let what = try run.step()
                do {
                    try run.check(againstFetch: true)
                } catch {
                    Issue.record("seed \(seed), step \(step) (\(what)): \(error)")
                    return
                }
            }
            // The sequence must have exercised every kind of change, or it proved less than it claims.
            #expect(run.tally.count == 9, "seed \(seed) ran \(run.tally)")
            #expect(run.reported.count == 6, "seed \(seed) saw only \(run.reported)")
        }
    }

    // MARK: - Focused cases

    /// A context with books titled and paged as given (saved), and a controller on them sectioned by `rank`.
    private func sectionedByRank(_ kind: StoreType, _ books: [(String, Int, Int?)]) throws
        -> (TestStack, ManagedObjectContext, FetchedResultsController<Book>, FetchedResultsRecorder)
    {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        var request = FetchRequest<Book>(entityName: "Book")
        request.predicate = try FetchPredicate(format: "inPrint == YES")
        request.sortDescriptors = [SortKey("rank"), SortKey("title")]
        let controller = FetchedResultsController(
            fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "rank")
        let recorder = FetchedResultsRecorder()
        controller.delegate = recorder
        try context.performAndWait {
            for (title, pages, rank) in books {
                let book = Book(context: context)
                book.title = title
                book.pages = pages
                try book.setValue(rank, forKey: "rank")
            }
            try context.save()
            try controller.performFetch()
        }
        return (stack, context, controller, recorder)
    }

    private func titles(_ controller: FetchedResultsController<Book>) -> [[String]] {
        (controller.sections ?? []).map { $0.objects.map { ($0 as! Book).title } }
    }

    private func summary(_ events: [FetchedResultsEvent]) -> [String] {
        events.compactMap { event in
            switch event {
            case .section(let name, let index, let type): return "section \(type) \(name) \(index)"
            case .object(let object, let from, let type, let to):
                let path = { (p: IndexPath?) in p.map { "\($0[0]).\($0[1])" } ?? "-" }
                return "\(type) \((object as! Book).title) \(path(from))>\(path(to))"
            default: return nil
            }
        }
    }

    @Test(
        "key paths through relationships stay current: a related object's change moves, inserts and deletes results",
        arguments: StoreType.allCases)
    func relationshipKeyPaths(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        var request = FetchRequest<Book>(entityName: "Book")
        request.predicate = try FetchPredicate(format: "author.rating > 1 AND NOT (ANY tags.name == 'hidden')")
        request.sortDescriptors = [SortKey("author.name"), SortKey("title")]
        let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context)
        let recorder = FetchedResultsRecorder()
        controller.delegate = recorder
        let (bobID, tagID) = try context.performAndWait { () throws in
            let ann = Author(context: context)
            ann.name = "Ann"
            let bob = Author(context: context)
            bob.name = "Bob"
            let tag = Tag(context: context)
            tag.name = "plain"
            for (title, author) in [("x", ann), ("y", bob), ("z", bob)] {
                let book = Book(context: context)
                book.title = title
                book.author = author
                book.tags = [tag]
            }
            try context.save()
            try controller.performFetch()
            return (bob.objectID, tag.objectID)
        }
        func check(_ expected: [String], _ what: String) throws {
            // Saved first: a fetch sorts and filters saved rows by their saved related values, so only then is it
            // the reference the controller must equal.
            try context.save()
            let fresh = try context.fetch(request).map(\.title)
            #expect(fresh == expected, "fresh fetch after \(what)")
            #expect(controller.fetchedObjects?.map(\.title) == fresh, "controller after \(what)")
        }
        try context.performAndWait { () throws in
            try check(["x", "y", "z"], "fetch")
            let bob = context.object(with: bobID) as! Author
            bob.name = "Aaron"  // y and z now sort first
            context.processPendingChanges()
            #expect(summary(recorder.take()).sorted() == ["move y 0.1>0.0", "move z 0.2>0.1"])
            try check(["y", "z", "x"], "renaming an author")
            bob.rating = 0.5  // y and z stop matching
            context.processPendingChanges()
            #expect(summary(recorder.take()).sorted() == ["delete y 0.0>-", "delete z 0.1>-"])
            try check(["x"], "lowering an author's rating")
            bob.rating = 2
            (context.object(with: tagID) as! Tag).name = "hidden"  // a to-many's member: every book stops matching
            context.processPendingChanges()
            #expect(summary(recorder.take()) == ["delete x 0.0>-"])
            try check([], "renaming a tag")
        }
        // A save merged from another context renames the tag back and the author again.
        let other = stack.newContext()
        let saved = NotificationRecorder(other, names: [ManagedObjectContext.didSaveNotification])
        try other.performAndWait { () throws in
            (other.object(with: tagID) as! Tag).name = "plain"
            (other.object(with: bobID) as! Author).name = "Cy"
            try other.save()
        }
        let note = try #require(saved.all.last)
        try context.performAndWait { () throws in
            context.mergeChanges(fromContextDidSave: note)
            #expect(summary(recorder.take()).sorted() == ["insert x ->0.0", "insert y ->0.1", "insert z ->0.2"])
            try check(["x", "y", "z"], "a merged save")
        }
    }

    @Test(
        "sections, object(at:), indexPath(forObject:) and fetchedObjects after performFetch",
        arguments: StoreType.allCases)
    func performFetch(kind: StoreType) throws {
        let (_, context, controller, recorder) = try sectionedByRank(
            kind, [("b", 1, 2), ("a", 1, 2), ("c", 1, nil), ("d", 1, 0)])
        try context.performAndWait {
            let sections = try #require(controller.sections)
            #expect(sections.map(\.name) == ["", "0", "2"], "nil first, then by rank")
            #expect(sections.map(\.numberOfObjects) == [1, 1, 2])
            #expect(sections.map(\.indexTitle) == [nil, "0", "2"])
            #expect(titles(controller) == [["c"], ["d"], ["a", "b"]])
            #expect(controller.fetchedObjects?.map(\.title) == ["c", "d", "a", "b"])
            let b = controller.object(at: IndexPath(indexes: [2, 1]))
            #expect(b.title == "b")
            #expect(controller.indexPath(forObject: b) == IndexPath(indexes: [2, 1]))
            #expect(recorder.events.isEmpty, "performFetch reports nothing")
        }
    }

    @Test("a section is inserted with its first object and deleted with its last", arguments: StoreType.allCases)
    func sectionInsertAndDelete(kind: StoreType) throws {
        let (_, context, controller, recorder) = try sectionedByRank(kind, [("a", 1, 1), ("b", 1, 3)])
        try context.performAndWait {
            let book = Book(context: context)
            book.title = "n"
            try book.setValue(2, forKey: "rank")
            context.processPendingChanges()
            #expect(summary(recorder.take()) == ["section insert 2 1", "insert n ->1.0"])
            #expect(titles(controller) == [["a"], ["n"], ["b"]])
            context.delete(book)
            context.processPendingChanges()
            #expect(summary(recorder.take()) == ["section delete 2 1", "delete n 1.0>-"])
            #expect(titles(controller) == [["a"], ["b"]])
        }
    }

    /// A context with saved books titled as given, and an unsectioned controller on them sorted by title.
    private func byTitle(_ kind: StoreType, _ titles: [String]) throws
        -> (TestStack, ManagedObjectContext, FetchedResultsController<Book>, FetchedResultsRecorder)
    {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        var request = FetchRequest<Book>(entityName: "Book")
        request.predicate = try FetchPredicate(format: "inPrint == YES")
        request.sortDescriptors = [SortKey("title")]
        let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context)
        let recorder = FetchedResultsRecorder()
        controller.delegate = recorder
        try context.performAndWait {
            for title in titles {
                let book = Book(context: context)
                book.title = title
            }
            try context.save()
            try controller.performFetch()
        }
        return (stack, context, controller, recorder)
    }

    private func book(_ controller: FetchedResultsController<Book>, _ title: String) throws -> Book {
        try #require(controller.fetchedObjects?.first { $0.title == title })
    }

    @Test(
        "one batch: deletes at old index paths, inserts at new ones, a move from old to new, an update with both",
        arguments: StoreType.allCases)
    func batchIndexPaths(kind: StoreType) throws {
        let (_, context, controller, recorder) = try byTitle(kind, ["a", "b", "c", "d", "e"])
        try context.performAndWait {
            let (a, b, d) = (try book(controller, "a"), try book(controller, "b"), try book(controller, "d"))
            context.delete(b)
            Book(context: context).title = "cc"
            a.title = "z"
            d.pages = 7
            context.processPendingChanges()
            let events = recorder.take()
            #expect(summary(events) == ["delete b 0.1>-", "insert cc ->0.1", "move z 0.0>0.4", "update d 0.3>0.2"])
            #expect(titles(controller) == [["c", "cc", "d", "e", "z"]])
            guard case .willChange? = events.first, case .didChange? = events.last else {
                Issue.record("changes not between will and did: \(events)")
                return
            }
        }
    }

    @Test(
        "an object whose section key changes moves across sections; its old section goes, its new one comes",
        arguments: StoreType.allCases)
    func moveAcrossSections(kind: StoreType) throws {
        let (_, context, controller, recorder) = try sectionedByRank(kind, [("a", 1, 1), ("b", 1, 2)])
        try context.performAndWait {
            try book(controller, "a").setValue(3, forKey: "rank")
            context.processPendingChanges()
            #expect(summary(recorder.take()) == ["section delete 1 0", "section insert 3 1", "move a 0.0>1.0"])
            #expect(controller.sections?.map(\.name) == ["2", "3"])
            try book(controller, "b").setValue(3, forKey: "rank")
            context.processPendingChanges()
            #expect(summary(recorder.take()) == ["section delete 2 0", "move b 0.0>0.1"])
            #expect(titles(controller) == [["a", "b"]])
        }
    }

    @Test(
        "a change of a sort key is a move even in place (as Core Data reports it); other changes are updates",
        arguments: StoreType.allCases)
    func moveInPlaceAndUpdate(kind: StoreType) throws {
        let (_, context, controller, recorder) = try byTitle(kind, ["a", "m", "z"])
        try context.performAndWait {
            try book(controller, "m").title = "n"
            context.processPendingChanges()
            #expect(summary(recorder.take()) == ["move n 0.1>0.1"])
            try book(controller, "n").pages = 300
            context.processPendingChanges()
            #expect(summary(recorder.take()) == ["update n 0.1>0.1"])
        }
    }

    @Test(
        "an object that stops matching the predicate is deleted; one that starts matching is inserted",
        arguments: StoreType.allCases)
    func predicateMembership(kind: StoreType) throws {
        let (_, context, controller, recorder) = try byTitle(kind, ["a", "b", "c"])
        try context.performAndWait {
            let b = try book(controller, "b")
            b.inPrint = false
            context.processPendingChanges()
            #expect(summary(recorder.take()) == ["delete b 0.1>-"])
            #expect(controller.indexPath(forObject: b) == nil)
            b.inPrint = true
            context.processPendingChanges()
            #expect(summary(recorder.take()) == ["insert b ->0.1"])
            b.subtitle = "unrelated"
            context.delete(try book(controller, "c"))
            context.processPendingChanges()
            #expect(summary(recorder.take()) == ["delete c 0.2>-", "update b 0.1>0.1"])
        }
    }

    @Test(
        "unsaved inserts show; an insert changed or deleted before its save moves or goes",
        arguments: StoreType.allCases)
    func unsavedInserts(kind: StoreType) throws {
        let (_, context, controller, recorder) = try byTitle(kind, ["b", "d"])
        context.performAndWait {
            let fresh = Book(context: context)
            fresh.title = "c"
            context.processPendingChanges()
            #expect(summary(recorder.take()) == ["insert c ->0.1"])
            fresh.title = "e"
            context.processPendingChanges()
            #expect(summary(recorder.take()) == ["move e 0.1>0.2"])
            context.delete(fresh)
            context.processPendingChanges()
            #expect(summary(recorder.take()) == ["delete e 0.2>-"])
            let rolledBack = Book(context: context)
            rolledBack.title = "a"
            context.processPendingChanges()
            _ = recorder.take()
            context.rollback()
            #expect(summary(recorder.take()) == ["delete a 0.0>-"])
            #expect(titles(controller) == [["b", "d"]])
        }
    }

    @Test("a child context's save into the controller's context shows up", arguments: StoreType.allCases)
    func childSave(kind: StoreType) throws {
        let (_, context, controller, recorder) = try byTitle(kind, ["b", "d"])
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = context
        let id = try context.performAndWait { try book(controller, "d").objectID }
        try child.performAndWait {
            Book(context: child).title = "c"
            (try child.existingObject(with: id) as? Book)?.title = "a"
            try child.save()
        }
        try context.performAndWait {
            #expect(summary(recorder.take()) == ["insert c ->0.2", "move a 0.1>0.0"])
            #expect(titles(controller) == [["a", "b", "c"]])
            try context.save()
            #expect(recorder.take().isEmpty, "saving changes no result")
        }
    }

    @Test(
        "a save merged from another coordinator shows up, and so does an automatic merge into a child",
        arguments: StoreType.allCases)
    func merges(kind: StoreType) throws {
        let (stack, context, controller, recorder) = try byTitle(kind, ["b", "d"])
        let other = try stack.separateStack().newContext()
        let saves = NotificationRecorder(other, names: [ManagedObjectContext.didSaveNotification])
        let id = try context.performAndWait { try book(controller, "b").objectID }
        try other.performAndWait {
            Book(context: other).title = "a"
            try other.existingObject(with: id).setValue("e", forKey: "title")
            try other.save()
        }
        let note = try #require(saves.all.last)
        context.performAndWait { context.mergeChanges(fromContextDidSave: note) }
        context.performAndWait {
            #expect(summary(recorder.take()) == ["insert a ->0.0", "move e 0.0>0.2"])
            #expect(titles(controller) == [["a", "d", "e"]])
        }

        // A controller on a child that merges automatically follows a sibling's save into the parent.
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = context
        child.automaticallyMergesChangesFromParent = true
        var request = FetchRequest<Book>(entityName: "Book")
        request.sortDescriptors = [SortKey("title")]
        let childController = FetchedResultsController(fetchRequest: request, managedObjectContext: child)
        let childRecorder = FetchedResultsRecorder()
        childController.delegate = childRecorder
        try child.performAndWait { try childController.performFetch() }
        let sibling = ManagedObjectContext(concurrencyType: .privateQueue)
        sibling.parent = context
        try sibling.performAndWait {
            Book(context: sibling).title = "c"
            try sibling.save()
        }
        child.performAndWait {}  // the merge runs on the child's queue
        child.performAndWait {
            #expect(summary(childRecorder.take()) == ["insert c ->0.1"])
            #expect(childController.fetchedObjects?.map(\.title) == ["a", "c", "d", "e"])
        }
    }

    @Test(
        "after reset nothing is reported (as in Core Data) and the results wait for performFetch",
        arguments: StoreType.allCases)
    func reset(kind: StoreType) throws {
        let (_, context, controller, recorder) = try sectionedByRank(kind, [("a", 1, 1), ("b", 1, 2), ("c", 1, 2)])
        try context.performAndWait {
            context.reset()
            #expect(recorder.take().isEmpty, "no section or object is reported deleted")
            #expect(controller.sections?.map(\.name) == ["1", "2"], "the results stay as the last fetch left them")
            try controller.performFetch()
            #expect(controller.fetchedObjects?.count == 3, "a new fetch brings them back")
        }
    }

    @Test(
        "requests a controller cannot keep are rejected with an error naming the problem", arguments: StoreType.allCases
    )
    func badRequests(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        var unsorted = FetchRequest<Book>(entityName: "Book")
        var sectionMismatch = unsorted
        sectionMismatch.sortDescriptors = [SortKey("title")]
        var limited = sectionMismatch
        limited.fetchLimit = 10
        var unknownKey = unsorted
        unknownKey.sortDescriptors = [SortKey("colour")]
        unsorted.predicate = try FetchPredicate(format: "pages > 1")
        let cases: [(FetchRequest<Book>, String?, String)] = [
            (unsorted, nil, "sort descriptors"),
            (sectionMismatch, "rank", "'rank' must be the key of the first sort descriptor"),
            (limited, nil, "fetchLimit (10)"),
            (unknownKey, nil, "colour"),
        ]
        context.performAndWait {
            for (request, sectionKey, message) in cases {
                let controller = FetchedResultsController(
                    fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: sectionKey)
                let error = #expect(throws: ObjectStackError.self) { try controller.performFetch() }
                #expect(error?.message.contains(message) == true, "\(error?.message ?? "no error")")
                #expect(controller.sections == nil && controller.fetchedObjects == nil)
            }
        }
    }
}
