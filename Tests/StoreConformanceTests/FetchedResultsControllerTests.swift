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

    @Test("random inserts, updates, deletes, saves, merges and child saves: equal to a fresh fetch after every step, and the reported changes turn the old results into the new",
          arguments: StoreKind.allCases)
    func randomSequence(kind: StoreKind) throws {
        for seed in Self.seeds {
            let run = try FetchedResultsRandomRun(kind, seed: seed)
            for step in 0..<Self.steps {
                let what = try run.step()
                do {
                    try run.check()
                } catch {
                    Issue.record("seed \(seed), step \(step) (\(what)): \(error)")
                    return
                }
            }
            // The sequence must have exercised every kind of change, or it proved less than it claims.
            #expect(run.tally.count == 9, "seed \(seed) ran \(run.tally)")
        }
    }

    // MARK: - Focused cases

    /// A context with books titled and paged as given (saved), and a controller on them sectioned by `rank`.
    private func sectionedByRank(_ kind: StoreKind, _ books: [(String, Int, Int?)]) throws
        -> (TestStack, ManagedObjectContext, FetchedResultsController<Book>, FetchedResultsRecorder)
    {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        var request = FetchRequest<Book>(entityName: "Book")
        request.predicate = try FetchPredicate(format: "inPrint == YES")
        request.sortDescriptors = [SortKey("rank"), SortKey("title")]
        let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "rank")
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

    @Test("sections, object(at:), indexPath(forObject:) and fetchedObjects after performFetch", arguments: StoreKind.allCases)
    func performFetch(kind: StoreKind) throws {
        let (_, context, controller, recorder) = try sectionedByRank(kind, [("b", 1, 2), ("a", 1, 2), ("c", 1, nil), ("d", 1, 0)])
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

    @Test("a section is inserted with its first object and deleted with its last", arguments: StoreKind.allCases)
    func sectionInsertAndDelete(kind: StoreKind) throws {
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
}
