import Foundation
import ObjectStack

/// A seeded random sequence of changes around two fetched results controllers, checked after every step.
///
/// The controllers watch one private-queue context ("view"): one in sections by `rank` (books in print with
/// fewer than 18 pages, by rank, pages descending, title), one unsectioned (books of 5 pages or more, by title
/// and pages). Steps insert, update (sort keys, section key, the predicate's keys — with many ties), delete,
/// save, merge saves of a background context and of a context on a separate coordinator, save a child
/// context into the view, refresh and roll back. After each step both controllers must equal a fresh fetch,
/// and the changes each reported must turn its previous results into its current ones.
final class FetchedResultsRandomRun {
    /// One controller under test with what it showed before the step.
    struct Watched {
        let controller: FetchedResultsController<Book>
        let recorder: FetchedResultsRecorder
        let request: FetchRequest<Book>
        let sectionName: ((ManagedObject) -> String)?
        var before: SectionedResults
    }

    static let titles = ["A", "B", "C", "a", "b"]
    /// About how many books a run keeps.
    static let population = 40

    let stack: TestStack
    let view: ManagedObjectContext
    let background: ManagedObjectContext
    let foreign: ManagedObjectContext
    private var random: SeededGenerator
    private(set) var watched: [Watched] = []
    /// How many steps each kind of change has been, for the test's report.
    private(set) var tally: [String: Int] = [:]
    /// How many changes of each kind the controllers reported ("object move", "section insert"…).
    private(set) var reported: [String: Int] = [:]

    init(_ kind: StoreType, seed: UInt64) throws {
        stack = try TestStack(kind)
        random = SeededGenerator(seed: seed)
        view = stack.newContext()
        view.name = "view"
        view.mergePolicy = .mergeByPropertyObjectTrump
        background = stack.newContext()
        background.mergePolicy = .mergeByPropertyObjectTrump
        foreign = try stack.separateStack().newContext()
        foreign.mergePolicy = .mergeByPropertyObjectTrump

        var sectioned = FetchRequest<Book>(entityName: "Book")
        sectioned.predicate = try FetchPredicate(format: "inPrint == YES AND pages < %d", 18)
        sectioned.sortDescriptors = [SortKey("rank"), SortKey("pages", ascending: false), SortKey("title")]
        var plain = FetchRequest<Book>(entityName: "Book")
        plain.predicate = try FetchPredicate(format: "pages >= %d", 5)
        plain.sortDescriptors = [SortKey("title"), SortKey("pages")]
        try view.performAndWait { () throws -> Void in
            for _ in 0..<20 { insertBook(into: view) }
            try view.save()
            try watch(sectioned, sectionNameKeyPath: "rank", sectionName: Self.rankName)
            try watch(plain, sectionNameKeyPath: nil, sectionName: nil)
            // The same sections for a delegate that takes snapshots: it must hear only those.
            try watch(sectioned, sectionNameKeyPath: "rank", sectionName: Self.rankName, snapshots: true)
        }
    }

    private func watch(
        _ request: FetchRequest<Book>, sectionNameKeyPath: String?, sectionName: ((ManagedObject) -> String)?,
        snapshots: Bool = false
    ) throws {
        let controller = FetchedResultsController(
            fetchRequest: request, managedObjectContext: view, sectionNameKeyPath: sectionNameKeyPath)
        let recorder = snapshots ? FetchedResultsSnapshotRecorder() : FetchedResultsRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        watched.append(
            Watched(
                controller: controller, recorder: recorder, request: request, sectionName: sectionName,
                before: SectionedResults(controller)))
    }

    /// The section name a book has under the `rank` key: its value as text, "" for nil.
    static func rankName(_ object: ManagedObject) -> String {
        object.value(forKey: "rank").map { "\($0)" } ?? ""
    }

    // MARK: - Steps

    /// Runs one random step; returns what it did.
    func step() throws -> String {
        var roll = Int.random(in: 0..<100, using: &random)
        // Keep the population near `population` books: past it, inserts turn into deletes (each step's fresh
        // fetches cost O(n), and a small population has more ties and section changes anyway).
        if roll < 22, (watched[1].controller.fetchedObjects?.count ?? 0) > Self.population { roll = 48 + roll % 8 }
        let kind: String
        switch roll {
        case 0..<22:
            kind = "insert"
            view.performAndWait { for _ in 0...Int.random(in: 0...1, using: &random) { insertBook(into: view) } }
        case 22..<48:
            kind = "update"
            try view.performAndWait {
                for book in try pick(view, count: Int.random(in: 1...3, using: &random)) { try change(book) }
            }
        case 48..<56:
            kind = "delete"
            try view.performAndWait { for book in try pick(view, count: 1) { view.delete(book) } }
        case 56..<66:
            kind = "save"
            try view.performAndWait { try view.save() }
        case 66..<78:
            kind = "background merge"
            try mergeBatch(from: background)
        case 78..<86:
            kind = "separate coordinator merge"
            try mergeBatch(from: foreign)
        case 86..<94:
            kind = "child save"
            try childSave()
        case 94..<98:
            kind = "refresh"
            try view.performAndWait {
                for book in try pick(view, count: 1) { view.refresh(book, mergeChanges: Bool.random(using: &random)) }
            }
        default:
            kind = "rollback"
            view.performAndWait { view.rollback() }
        }
        tally[kind, default: 0] += 1
        return kind
    }

    private func insertBook(into context: ManagedObjectContext) {
        let book = Book(context: context)
        book.title = Self.titles[Int.random(in: 0..<Self.titles.count, using: &random)]
        book.pages = Int.random(in: 0...20, using: &random)
        book.inPrint = Int.random(in: 0..<5, using: &random) != 0
        try? book.setValue(randomRank(), forKey: "rank")
    }

    private func randomRank() -> Int? {
        let rank = Int.random(in: -1...5, using: &random)
        return rank < 0 ? nil : rank
    }

    /// Changes one or two of a book's keys: sort keys, the section key, or the predicate's keys.
    private func change(_ book: Book) throws {
        for _ in 0...Int.random(in: 0...1, using: &random) {
            switch Int.random(in: 0..<4, using: &random) {
            case 0: book.title = Self.titles[Int.random(in: 0..<Self.titles.count, using: &random)]
            case 1: book.pages = Int.random(in: 0...20, using: &random)
            case 2: try book.setValue(randomRank(), forKey: "rank")
            default: book.inPrint.toggle()
            }
        }
    }

    /// Random books of a context (saved or not, not deleted).
    private func pick(_ context: ManagedObjectContext, count: Int) throws -> [Book] {
        let books = try context.all(Book.self, "Book")
        guard !books.isEmpty else { return [] }
        return (0..<count).map { _ in books[Int.random(in: 0..<books.count, using: &random)] }
    }

    /// Inserts, updates and deletes saved books in another context, saves, and merges the save into the view.
    private func mergeBatch(from source: ManagedObjectContext) throws {
        let saves = NotificationRecorder(source, names: [ManagedObjectContext.didSaveNotification])
        try source.performAndWait {
            let books = try source.all(Book.self, "Book")
            for _ in 0..<Int.random(in: 0...3, using: &random) { insertBook(into: source) }
            if !books.isEmpty {
                for _ in 0..<Int.random(in: 0...3, using: &random) {
                    try change(books[Int.random(in: 0..<books.count, using: &random)])
                }
                for _ in 0..<Int.random(in: 0...2, using: &random) {
                    source.delete(books[Int.random(in: 0..<books.count, using: &random)])
                }
            }
            try source.save()
            // Forget what was read, so the next batch starts from the store (no stale rows, no conflicts).
            source.reset()
        }
        guard let note = saves.all.last else { return }
        view.performAndWait { view.mergeChanges(fromContextDidSave: note) }
    }

    /// A child of the view changes and inserts books and saves into the view.
    private func childSave() throws {
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = view
        let ids = try view.performAndWait { try pick(view, count: 2).map(\.objectID) }
        try child.performAndWait {
            for id in ids {
                if let book = try? child.existingObject(with: id) as? Book { try change(book) }
            }
            insertBook(into: child)
            try child.save()
        }
    }

    // MARK: - Checking

    /// Checks both controllers against a fresh fetch and their reported changes against their results.
    /// - Throws: `ApplyError` describing the first mismatch.
    /// - Parameter againstFetch: whether to compare with a fresh fetch too (the costly part); the reported
    ///   changes and the structure are checked every time.
    func check(againstFetch: Bool = true) throws {
        try view.performAndWait {
            view.processPendingChanges()
            for index in watched.indices {
                try check(&watched[index], againstFetch: againstFetch)
            }
        }
    }

    private func check(_ item: inout Watched, againstFetch: Bool) throws {
        var name = item.controller.sectionNameKeyPath.map { "sectioned by \($0)" } ?? "unsectioned"
        let events = item.recorder.take()
        let now = SectionedResults(item.controller)
        let applied: SectionedResults
        if item.recorder is FetchedResultsSnapshotRecorder {
            name += " (snapshots)"
            // A snapshot delegate hears nothing else; the last snapshot is the results (checked below).
            guard events.allSatisfy({ if case .snapshot = $0 { true } else { false } }) else {
                throw ApplyError("\(name): a snapshot delegate heard \(events)")
            }
            applied = events.isEmpty ? item.before : now
        } else {
            do {
                applied = try item.before.applying(events)
            } catch {
                throw ApplyError("\(name): \(error)\n  events: \(events)")
            }
        }
        guard applied == now else {
            throw ApplyError(
                "\(name): reported changes give\n  \(applied)\n  but the controller holds\n  \(now)\n  events: \(events)"
            )
        }
        let fresh =
            againstFetch ? SectionedResults(fetched: try view.fetch(item.request), sectionName: item.sectionName) : now
        guard fresh == now else {
            throw ApplyError(
                "\(name): a fresh fetch gives\n  \(fresh)\n  but the controller holds\n  \(now)\n  events: \(events)")
        }
        if let problem = item.controller._checkInvariants() { throw ApplyError("\(name): \(problem)") }
        let flat = now.sections.flatMap(\.objects)
        guard let fetched = item.controller.fetchedObjects, fetched.count == flat.count,
            zip(fetched, flat).allSatisfy({ $0 === $1 })
        else {
            throw ApplyError("\(name): fetchedObjects differ from the sections")
        }
        for event in events {
            switch event {
            case .object(_, _, let type, _): reported["object \(type)", default: 0] += 1
            case .section(_, _, let type): reported["section \(type)", default: 0] += 1
            default: break
            }
        }
        if case .snapshot(let names, let ids)? = events.last {
            guard names == now.sections.map(\.name), ids == now.sections.map({ $0.objects.map(\.objectID) }) else {
                throw ApplyError("\(name): the snapshot differs from the results")
            }
        }
        if !flat.isEmpty {
            let object = flat[Int.random(in: 0..<flat.count, using: &random)]
            guard let path = item.controller.indexPath(forObject: object), item.controller.object(at: path) === object
            else {
                throw ApplyError("\(name): indexPath(forObject:) and object(at:) disagree for \(object.objectID)")
            }
        }
        item.before = now
    }
}
