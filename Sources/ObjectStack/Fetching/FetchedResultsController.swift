import Foundation

/// Keeps the results of a fetch current, in sections, and tells a delegate what changed (Core Data's
/// `NSFetchedResultsController`).
///
/// After `performFetch()`, while it has a delegate, the controller watches its context's
/// `objectsDidChangeNotification` — the context's own inserts, updates and deletes (unsaved ones included),
/// changes merged by `mergeChanges(fromContextDidSave:)` or automatic merging, and a child's save — and updates
/// its results in memory, without fetching again: an object that starts matching the predicate is inserted, one
/// that stops matching or is deleted is removed, one whose sort keys change moves. The cost of a change follows
/// the number of changed objects, not the number of results. As in Core Data, a controller without a delegate
/// does not track changes, and after the context's `reset()` it reports nothing and waits for the next
/// `performFetch()`. See <doc:FetchedResultsControllers> for the delegate protocols.
///
/// For example:
/// ```swift
/// var request = FetchRequest<Book>(entityName: "Book")
/// request.predicate = try FetchPredicate(format: "pages > %d", 100)
/// request.sortDescriptors = [SortKey("genre"), SortKey("title")]
/// let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context,
///                                           sectionNameKeyPath: "genre")
/// controller.delegate = bookList
/// try controller.performFetch()
/// let first = controller.object(at: IndexPath(row: 0, section: 0))
/// ```
///
/// Rules, as in Core Data: the request needs sort descriptors; with a `sectionNameKeyPath`, the first sort
/// descriptor must sort by that key path (sections follow its order). Objects that tie on every sort key are
/// in the order a fresh fetch gives them: saved objects by primary key, then unsaved ones in insertion order.
/// Sort keys and predicates that go through relationships are re-read when the fetched object itself
/// changes, not when the related object does (as in Core Data).
/// - warning: Not thread-safe: use it on its context's queue, like the context's objects. Its delegate is
///   called there.
public final class FetchedResultsController<Result: ManagedObject>: FetchedResultsControlling, @unchecked Sendable {
    // @unchecked: like its context, the controller is confined to the context's queue; the notification
    // observer that captures it runs there, because the context posts on its own queue.

    /// The request whose results the controller keeps; a change takes effect at the next `performFetch()`.
    public var fetchRequest: FetchRequest<Result>
    /// The context whose objects are fetched and watched.
    public let managedObjectContext: ManagedObjectContext
    /// The key path whose value names each object's section; nil for one section holding every object.
    public let sectionNameKeyPath: String?
    /// Receives the changes. Without a delegate the controller does not track changes, as in Core Data: its
    /// results stay as the last `performFetch()` left them. A `FetchedResultsControllerSnapshotDelegate` hears
    /// only the results' snapshots; any other delegate the changes one by one (see the protocols).
    public weak var delegate: (any FetchedResultsControllerDelegate)?

    /// The results, from `performFetch()` on.
    var state: FetchedResultsState?
    /// Whether the context was reset since the last fetch: its objects are invalid, so changes wait for the
    /// next `performFetch()`.
    var awaitsFetch = false
    private var observer: (any NSObjectProtocol)?

    /// Creates a controller; call `performFetch()` to fetch.
    ///
    /// - Parameters:
    ///   - fetchRequest: sorted by at least one key; `fetchLimit` and `fetchOffset` must be 0.
    ///   - managedObjectContext: the context to fetch in and to watch.
    ///   - sectionNameKeyPath: the key path naming sections; the first sort key must sort by it.
    public init(
        fetchRequest: FetchRequest<Result>, managedObjectContext: ManagedObjectContext,
        sectionNameKeyPath: String? = nil
    ) {
        self.fetchRequest = fetchRequest
        self.managedObjectContext = managedObjectContext
        self.sectionNameKeyPath = sectionNameKeyPath
    }

    deinit {
        if let observer { NotificationCenter.default.removeObserver(observer) }
    }

    // MARK: - Fetching

    /// Fetches the results (no delegate calls) and starts watching the context (changes are applied while
    /// there is a delegate).
    ///
    /// - Complexity: the fetch, plus O(n) to read each result's sort keys.
    /// - Throws: `ObjectStackError` `.invalidArgument` for a request without sort descriptors, with a fetch
    ///   limit or offset, of another result type, or whose first sort key is not `sectionNameKeyPath`; the
    ///   fetch's own errors (`.unknownEntity`, `.unknownKeyPath`, `.typeMismatch`, `.storeFailed`).
    public func performFetch() throws {
        managedObjectContext.assertOnQueue("FetchedResultsController.performFetch()")
        var request = fetchRequest
        let entity = request.entityName ?? "\(Result.self)"
        try validate(request, entity: entity)
        let plan = try FetchPlan(request: request, model: managedObjectContext.model, resultClass: Result.self)
        // The controller reads every result's sort keys: materialise them from the fetch's rows at once.
        request.returnsObjectsAsFaults = false
        request.fetchBatchSize = 0
        let objects = try managedObjectContext.fetch(request)
        let order = FetchedResultsOrder(sortKeys: plan.store.sortKeys, isSectioned: sectionNameKeyPath != nil)
        let evaluator = PredicateEvaluator(resolver: ContextResolver(context: managedObjectContext))
        var entries = try objects.map { object in
            let keys = try order.sortKeys.map { try evaluator.value(of: $0.keyPath, on: object) }
            return FetchedEntry(object: object, keys: keys, lead: order.lead(of: keys))
        }
        // The store already sorted them the same way; check rather than trust, since every later binary
        // search depends on it.
        let isSorted = zip(entries, entries.dropFirst()).allSatisfy { a, b in
            order.compare(a.keys, a.object.objectID, b.keys, b.object.objectID) == .orderedAscending
        }
        if !isSorted {
            entries.sort { a, b in
                order.compare(a.keys, a.object.objectID, b.keys, b.object.objectID) == .orderedAscending
            }
        }
        let kinds = Set(plan.store.candidateEntities.map(ObjectIdentifier.init))
        state = FetchedResultsState(
            order: order, predicate: plan.store.predicate, candidateEntities: kinds, sorted: entries)
        awaitsFetch = false
        if observer == nil {
            observer = NotificationCenter.default.addObserver(
                forName: ManagedObjectContext.objectsDidChangeNotification, object: managedObjectContext, queue: nil
            ) { [weak self] notification in
                self?.contextDidChange(notification)
            }
        }
    }

    private func validate(_ request: FetchRequest<Result>, entity: String) throws {
        guard !request.sortDescriptors.isEmpty else {
            throw ObjectStackError(
                code: .invalidArgument,
                message: "a fetched results controller needs a fetch request with sort descriptors (fetch of \(entity))"
            )
        }
        guard request.fetchLimit == 0, request.fetchOffset == 0 else {
            throw ObjectStackError(
                code: .invalidArgument,
                message:
                    "a fetched results controller keeps every match current; fetchLimit (\(request.fetchLimit)) and "
                    + "fetchOffset (\(request.fetchOffset)) must be 0 (fetch of \(entity))")
        }
        guard request.resultType == .managedObject else {
            throw ObjectStackError(
                code: .invalidArgument,
                message:
                    "a fetched results controller fetches objects, not \(request.resultType) results (fetch of \(entity))"
            )
        }
        if let sectionNameKeyPath {
            let first = request.sortDescriptors[0]
            guard first.key == sectionNameKeyPath else {
                throw ObjectStackError(
                    code: .invalidArgument,
                    message: "sectionNameKeyPath '\(sectionNameKeyPath)' must be the key of the first sort descriptor, "
                        + "which sorts by '\(first.key)' (fetch of \(entity)): sections follow the first sort key")
            }
            guard !first.caseInsensitive else {
                throw ObjectStackError(
                    code: .invalidArgument,
                    message: "the first sort descriptor (\(first)) names sections and must not be case-insensitive: "
                        + "\"a\" and \"A\" would be one place in the order but two sections (fetch of \(entity))")
            }
        }
    }

    // MARK: - Reading the results

    /// Every result, in order, section after section; nil before `performFetch()`.
    /// - Complexity: O(n) on each call. (Not cached: dropping a cached array of n objects at every change
    ///   would make each change cost O(n).) Prefer `sections` and `object(at:)`.
    public var fetchedObjects: [Result]? {
        guard let state else { return nil }
        var objects: [Result] = []
        objects.reserveCapacity(state.count)
        for section in state.sections {
            for entry in section.rows.entries { objects.append(typed(entry.object)) }
        }
        return objects
    }

    /// The sections, in order; nil before `performFetch()`. Without a `sectionNameKeyPath` there is exactly
    /// one section, named "", even when it is empty.
    /// - Complexity: O(s) for s sections.
    public var sections: [FetchedResultsSection]? {
        state.map { state in state.sections.map(section(from:)) }
    }

    func section(from section: FetchedSection) -> FetchedResultsSection {
        FetchedResultsSection(
            name: section.name, indexTitle: sectionIndexTitle(forSectionName: section.name), rows: section.rows)
    }

    /// The object at an index path (section, row).
    /// - Precondition: the index path is within `sections` (as with an array index).
    /// - Complexity: O(n/B) for chunks of B rows.
    public func object(at indexPath: IndexPath) -> Result {
        typed(managedObject(at: indexPath))
    }

    /// The object at an index path, as a `ManagedObject`.
    /// - Precondition: the index path is within `sections`.
    public func managedObject(at indexPath: IndexPath) -> ManagedObject {
        guard let state else { preconditionFailure("object(at: \(indexPath)) before performFetch() was called") }
        precondition(indexPath.count == 2, "object(at: \(indexPath)): an index path has a section and a row")
        let (section, row) = (indexPath[0], indexPath[1])
        precondition(
            state.sections.indices.contains(section),
            "object(at: \(indexPath)): section \(section) is out of range (\(state.sections.count) sections)")
        guard let entry = state.sections[section].rows.entry(atRank: row) else {
            preconditionFailure(
                "object(at: \(indexPath)): row \(row) is out of range (section \(section) has \(state.sections[section].rows.count) objects)"
            )
        }
        return entry.object
    }

    /// The index path of an object in the results, or nil when it is not among them.
    /// - Complexity: O(log n + n/B).
    public func indexPath(forObject object: ManagedObject) -> IndexPath? {
        guard let keys = state?.keysByObject[ObjectIdentifier(object)] else { return nil }
        return state?.indexPath(of: object, keys: keys)
    }

    /// The index title of a section: the delegate's, or by default the name's first letter, capitalised.
    public func sectionIndexTitle(forSectionName sectionName: String) -> String? {
        if let title = delegate?.controller(self, sectionIndexTitleForSectionName: sectionName) { return title }
        return sectionName.first.map { String($0).uppercased() }
    }

    /// The index titles of the sections, each once, in section order.
    public var sectionIndexTitles: [String] {
        var seen: Set<String> = []
        return (state?.sections ?? []).compactMap { sectionIndexTitle(forSectionName: $0.name) }.filter {
            seen.insert($0).inserted
        }
    }

    func typed(_ object: ManagedObject) -> Result {
        guard let result = object as? Result else {
            // The fetch checked the class, and later objects are of the request's entities: unreachable.
            preconditionFailure("\(object.objectID) is a \(type(of: object)), not a \(Result.self)")
        }
        return result
    }

    /// Checks the results' structure (sections in order and non-empty, rows in order, the key map in step)
    /// and says what is wrong, or nil when it holds. For tests.
    /// - Complexity: O(n).
    public func _checkInvariants() -> String? {
        state?.checkInvariants()
    }
}
