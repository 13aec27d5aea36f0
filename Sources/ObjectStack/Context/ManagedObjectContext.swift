import Dispatch
import Foundation

/// A scratch pad of managed objects: it fetches them, tracks their changes, and saves them to its store.
///
/// For example:
/// ```swift
/// let context = ManagedObjectContext(concurrencyType: .privateQueue)
/// context.persistentStoreCoordinator = coordinator
/// try context.performAndWait {
///     let book = Book(context: context)
///     book.title = "Dune"
///     try context.save()
/// }
/// ```
/// A `.privateQueue` context runs its blocks on its own serial queue; a `.mainQueue` context runs them on
/// `DispatchQueue.main`, which only drains while the main thread services it: call `dispatchMain()`, run a
/// run loop, or use the main actor from an async `main`. `performAndWait` on the context's own queue (for
/// a main-queue context: on the main thread) runs the block inline.
/// - warning: Not thread-safe: touch a context and its objects only inside `perform`/`performAndWait` (or on
///   the main thread for a main-queue context). Set `STACKLAB_CONCURRENCY_DEBUG=1` to trap on a violation.
public final class ManagedObjectContext: @unchecked Sendable {
    // @unchecked: every mutable member below is confined to the context's queue (see the class doc); with
    // STACKLAB_CONCURRENCY_DEBUG=1 each entry point checks that it runs there.

    /// Where a context runs its blocks.
    public enum ConcurrencyType: Sendable {
        /// On `DispatchQueue.main`.
        case mainQueue
        /// On a serial queue of its own.
        case privateQueue
    }

    /// Where the context runs its blocks.
    public let concurrencyType: ConcurrencyType
    /// A name for logs and concurrency messages.
    public var name: String?
    /// The author recorded in the persistent history transactions this context's saves and batch requests write
    /// (Core Data's `transactionAuthor`); nil for none. History fetches can filter on it (`author != %@`).
    public var transactionAuthor: String?
    /// The pinned query generation, nil when reads see the stores' latest data.
    // Like the other state below, used on the context's queue only: the runtime's exclusivity checks on reads of
    // it and of `stalenessInterval` showed in every lookup by ID.
    @exclusivity(unchecked) var queryGenerationStorage: QueryGeneration?
    /// How conflicts found at save are resolved. Default `.error`, as in Core Data.
    public var mergePolicy: MergePolicy = .error
    /// Whether the context merges changes saved by other contexts on its coordinator (a root context) or
    /// saved into and by its parent (a child context), as `mergeChanges(fromContextDidSave:)` does.
    public var automaticallyMergesChangesFromParent: Bool {
        get { automaticMergeStorage }
        set {
            automaticMergeStorage = newValue
            if let coordinator = coordinatorStorage {
                coordinator.setAutomaticMerging(newValue, for: self)
            }
        }
    }
    /// How old (in seconds) a cached row may be when a fault fires; negative means any age.
    @exclusivity(unchecked) public var stalenessInterval: TimeInterval = -1

    let queue: DispatchQueue
    private let queueKey = DispatchSpecificKey<ObjectIdentifier>()
    /// The coordinator of a root context (nil for a child).
    @exclusivity(unchecked) var coordinatorStorage: PersistentStoreCoordinator?
    /// The parent of a child context.
    @exclusivity(unchecked) var parentStorage: ManagedObjectContext?
    /// Child contexts, for ID changes and automatic merges; shared with the children's queues, so locked.
    let children = LockedValue<[WeakContext]>([])
    /// Temporary IDs this context (or its parent) replaced with permanent ones, so late references resolve.
    @exclusivity(unchecked) var permanentIDs: [ManagedObjectID: ManagedObjectID] = [:]
    var automaticMergeStorage = false

    /// Objects registered in the context, by ID. Like an object's state, the context's tables are used on its
    /// queue only, and are `@exclusivity(unchecked)` for the runtime's per-access bookkeeping they cost.
    @exclusivity(unchecked) var registered = ObjectRegistry()
    /// Objects inserted and not yet saved.
    @exclusivity(unchecked) var insertedSet: Set<ManagedObject> = [] {
        didSet { insertionOrder.insertedSetDidChange(count: insertedSet.count) }
    }
    /// The inserted objects in key order, while `insert(_:)` alone has changed `insertedSet`.
    @exclusivity(unchecked) var insertionOrder = InsertionOrder()
    /// Objects deleted and not yet saved.
    @exclusivity(unchecked) var deletedSet: Set<ManagedObject> = []
    /// Saved objects that have been changed (candidates for `updatedObjects`).
    @exclusivity(unchecked) var changedSet: Set<ManagedObject> = []
    /// Deleted objects whose delete rules have not run yet.
    var deletionsToPropagate: [ManagedObject] = []
    /// Changes since the last `objectsDidChange`.
    var pendingNotification = PendingChanges()
    /// While true, the objects inserted since the last `objectsDidChange` are exactly `insertedSet` (both began
    /// empty and only `insert(_:)` has added to them since), so `pendingNotification.inserted` is not kept apart:
    /// the notification takes `insertedSet` as it is. Hashing each new object into a second set of the same
    /// objects was a twentieth of inserting 100,000. Any other change to either calls `detachPendingInserts()`
    /// first.
    @exclusivity(unchecked) var pendingInsertsAreInsertedSet = true
    /// During `save()`: the updated objects its `objectsDidChange` announced and their IDs, so the save's own
    /// notifications reuse the ID set when the save writes those same objects (a second set of 100,000 IDs was a
    /// pass touching every object and ID again). The latest announcement within the save; `nil` outside one.
    @exclusivity(unchecked) var announcedUpdates: AnnouncedUpdates?
    /// Whether `processPendingChanges` records `announcedUpdates` (only while `save()` runs, so the sets are not
    /// kept past it).
    @exclusivity(unchecked) var recordsAnnouncedUpdates = false
    var processingScheduled = false
    /// The undo manager and what this cycle changed, when the context has an undo manager (see `undoManager`).
    @exclusivity(unchecked) var undoRecorder: ContextUndoRecorder?

    /// Creates a context. Give it a coordinator (or, for a child, a parent) before using it.
    public init(concurrencyType: ConcurrencyType) {
        if Self.concurrencyDebugRequested, !Self.concurrencyDebugOn { Self.concurrencyDebugOn = true }
        self.concurrencyType = concurrencyType
        switch concurrencyType {
        case .mainQueue:
            queue = DispatchQueue.main
        case .privateQueue:
            queue = DispatchQueue(label: "ObjectStack.context.\(Self.counter.next())")
            queue.setSpecific(key: queueKey, value: ObjectIdentifier(self))
        }
    }

    private static let counter = AtomicCounter()

    deinit {
        // The objects' references to this context are not weak: each is cleared here, so an object the app
        // still holds reads a nil context rather than a dangling one.
        for object in registered.values { object.contextStorage = nil }
        let ids = Array(registered.keys)
        coordinatorStorage?.rowCache.withLock { cache in ids.forEach { cache.release($0) } }
    }

    /// The coordinator the context's changes reach: its own, or (for a child) its root ancestor's.
    /// Set it once, before the context is used; a context has a coordinator or a parent, not both.
    public var persistentStoreCoordinator: PersistentStoreCoordinator? {
        get { coordinatorStorage ?? parentStorage?.persistentStoreCoordinator }
        set {
            precondition(registered.isEmpty, "cannot change the coordinator of a context that has objects")
            precondition(parentStorage == nil, "context \(displayName) has a parent; it cannot also have a coordinator")
            coordinatorStorage = newValue
            if automaticMergeStorage { newValue?.setAutomaticMerging(true, for: self) }
        }
    }

    /// The parent of a child context: its saves go to the parent, and its fetches see the parent's unsaved
    /// state. Set it once, before the context is used.
    public var parent: ManagedObjectContext? {
        get { parentStorage }
        set {
            precondition(registered.isEmpty, "cannot change the parent of a context that has objects")
            precondition(
                coordinatorStorage == nil, "context \(displayName) has a coordinator; it cannot also have a parent")
            precondition(newValue !== self, "a context cannot be its own parent")
            parentStorage?.children.withLock { $0.removeAll { $0.context === self || $0.context == nil } }
            parentStorage = newValue
            newValue?.children.withLock { $0.append(WeakContext(context: self)) }
        }
    }

    /// The model of the context's coordinator.
    public var model: ManagedObjectModel {
        coordinator.managedObjectModel
    }

    /// The root coordinator (for a child: its root ancestor's).
    var coordinator: PersistentStoreCoordinator {
        guard let coordinator = persistentStoreCoordinator else {
            preconditionFailure("context \(displayName) has neither a persistent store coordinator nor a parent")
        }
        return coordinator
    }

    var displayName: String { name ?? "\(concurrencyType == .mainQueue ? "main" : "private") context" }

    // MARK: - Running blocks

    /// Whether the caller is on the context's queue: for a main-queue context, on the main thread or in a
    /// block the main queue runs. (After `dispatchMain()` libdispatch may drain the main queue on a worker
    /// thread, so `Thread.isMainThread` alone would miss it.)
    public var isOnQueue: Bool {
        if ContextExecutionStack.contains(ObjectIdentifier(self)) { return true }
        switch concurrencyType {
        case .mainQueue: return Self.isOnMainQueue
        case .privateQueue: return DispatchQueue.getSpecific(key: queueKey) == ObjectIdentifier(self)
        }
    }

    /// Whether the caller runs on the main thread or in a block of the main queue.
    public static var isOnMainQueue: Bool {
        Thread.isMainThread || DispatchQueue.getSpecific(key: mainQueueKey) == true
    }

    /// Marks the main queue so blocks it runs on worker threads are recognised.
    private static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// Runs a block on the context's queue and returns at once; pending changes are processed after it.
    public func perform(_ block: @escaping @Sendable () -> Void) {
        queue.async {
            ContextExecutionStack.run(for: ObjectIdentifier(self)) {
                block()
                self.processPendingChanges()
            }
        }
    }

    /// Runs a block on the context's queue and waits for it. On the context's own queue (for a main-queue
    /// context: on the main thread) the block runs inline, so nested calls do not deadlock.
    public func performAndWait<T>(_ block: () throws -> T) rethrows -> T {
        if isOnQueue {
            return try block()
        }
        return try queue.sync {
            try ContextExecutionStack.run(for: ObjectIdentifier(self)) {
                defer { processPendingChanges() }
                return try block()
            }
        }
    }

    /// Runs a block on the context's queue and returns its result to the awaiting task.
    public func perform<T: Sendable>(_ block: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                let result = ContextExecutionStack.run(for: ObjectIdentifier(self)) {
                    defer { self.processPendingChanges() }
                    return Result { try block() }
                }
                continuation.resume(with: result)
            }
        }
    }

    // MARK: - Concurrency checking

    /// Whether `STACKLAB_CONCURRENCY_DEBUG=1` was set when the process started (read when the first context is
    /// made).
    ///
    /// Every typed property read checks it: a lazily initialised `static let` cost a `swift_once` call per read
    /// (2% of looking objects up by ID), while this constant-initialised flag is a plain load. It is written only
    /// when the variable is set, before the context that sets it is used.
    static var concurrencyDebug: Bool { concurrencyDebugOn }
    nonisolated(unsafe) private static var concurrencyDebugOn = false
    private static let concurrencyDebugRequested =
        ProcessInfo.processInfo.environment["STACKLAB_CONCURRENCY_DEBUG"] == "1"

    /// With concurrency debugging on, traps when called off the context's queue.
    @inline(__always)
    func assertOnQueue(_ call: @autoclosure () -> String) {
        guard Self.concurrencyDebug else { return }
        if !isOnQueue {
            preconditionFailure(
                "ObjectStack concurrency violation: \(call()) on context '\(displayName)' off its queue (thread \(Thread.current))"
            )
        }
    }

    // MARK: - Registered objects

    /// Every object registered in the context.
    public var registeredObjects: Set<ManagedObject> { Set(registered.values) }
    /// Objects inserted and not yet saved.
    public var insertedObjects: Set<ManagedObject> { insertedSet }
    /// Objects deleted and not yet saved.
    public var deletedObjects: Set<ManagedObject> { deletedSet }
    /// Saved objects with unsaved changes.
    public var updatedObjects: Set<ManagedObject> { changedSet.filter { $0.isUpdated } }
    /// Whether anything is inserted, deleted or changed.
    public var hasChanges: Bool {
        !insertedSet.isEmpty || !deletedSet.isEmpty || changedSet.contains { $0.hasPersistentChanges }
    }

    /// The registered object with this ID, if any; never reads the store.
    public func registeredObject(for objectID: ManagedObjectID) -> ManagedObject? {
        assertOnQueue("registeredObject(for:)")
        return registered[resolved(objectID)]
    }

    /// The permanent ID a temporary one was replaced with, if any.
    func resolved(_ objectID: ManagedObjectID) -> ManagedObjectID {
        objectID.isTemporaryID ? permanentIDs[objectID] ?? objectID : objectID
    }

    /// The object with this ID: the registered one, or a new fault (which reads the store when it fires).
    public func object(with objectID: ManagedObjectID) -> ManagedObject {
        assertOnQueue("object(with:)")
        let objectID = resolved(objectID)
        if let existing = registered[objectID] { return existing }
        let object = makeFault(objectID)
        register(object, snapshot: nil)
        return object
    }

    /// A new, unregistered fault of the object with this ID.
    func makeFault(_ objectID: ManagedObjectID) -> ManagedObject {
        let object = objectID.entity.managedObjectClass.init(entity: objectID.entity, insertInto: nil)
        object.objectID = objectID
        object.isFault = true
        return object
    }

    /// The object with this ID, read from the store if it is not registered.
    /// - Throws: `ObjectStackError` `.objectNotFound` when no such object exists.
    public func existingObject(with objectID: ManagedObjectID) throws -> ManagedObject {
        assertOnQueue("existingObject(with:)")
        let objectID = resolved(objectID)
        // A root context finds the object, or registers a fault for it, in one probe of its table; the fault
        // leaves again if the row cannot be read. It looks the row up (or reads it) and counts its hold on it at
        // once. (A pinned context reads its generation, never the shared cache's newer rows.)
        if !objectID.isTemporaryID, parentStorage == nil, queryGenerationStorage == nil,
            let coordinator = coordinatorStorage
        {
            let (object, isNew) = registered.object(for: objectID) { makeFault(objectID) }
            if isNew {
                let snapshot: RowSnapshot?
                do {
                    snapshot = try coordinator.retainedSnapshot(
                        for: objectID, maximumAge: stalenessInterval >= 0 ? stalenessInterval : nil)
                } catch {
                    registered.removeValue(forKey: objectID)
                    throw ObjectStackError(code: .storeFailed, message: "could not read \(objectID)", cause: error)
                }
                guard let snapshot else {
                    registered.removeValue(forKey: objectID)
                    throw ObjectStackError(
                        code: .objectNotFound, message: "\(objectID.entityName) \(objectID) is not in the store")
                }
                object.managedObjectContext = self
                materialize(object, with: snapshot)
                return object
            }
            if !object.isFault, !object.isInaccessible { return object }
        }
        if let existing = registered[objectID], !existing.isFault, !existing.isInaccessible { return existing }
        guard !objectID.isTemporaryID || parentStorage != nil else {
            throw ObjectStackError(
                code: .objectNotFound, message: "no object with temporary ID \(objectID) is registered")
        }
        let snapshot: RowSnapshot?
        do {
            snapshot = try parentSnapshots(for: [objectID], fresh: false)[0]
        } catch {
            throw ObjectStackError(code: .storeFailed, message: "could not read \(objectID)", cause: error)
        }
        guard let snapshot else {
            throw ObjectStackError(
                code: .objectNotFound, message: "\(objectID.entityName) \(objectID) is not in the store")
        }
        let object = object(with: objectID)
        materialize(object, with: snapshot)
        return object
    }

    /// Registers an object read from the store (a fault when `snapshot` is nil).
    func register(_ object: ManagedObject, snapshot: RowSnapshot?) {
        object.managedObjectContext = self
        registered[object.objectID] = object
        if !object.objectID.isTemporaryID {
            coordinatorStorage?.rowCache.withLock { $0.retain(object.objectID, snapshot: snapshot) }
        }
        if let snapshot { materialize(object, with: snapshot) }
    }

    /// Forgets an object (after it is saved as deleted, or on reset).
    func unregister(_ object: ManagedObject) {
        guard registered.removeValue(forKey: object.objectID) != nil else { return }
        if !object.objectID.isTemporaryID {
            coordinatorStorage?.rowCache.withLock { $0.release(object.objectID) }
        }
        object.managedObjectContext = nil
    }

    /// Gives a fault its values.
    func materialize(_ object: ManagedObject, with snapshot: RowSnapshot) {
        if fillRow(object, with: snapshot) { object.awakeFromFetch() }
    }

    /// Gives a fault its values without waking it; true when it was a fault, so `awakeFromFetch` is owed.
    func fillRow(_ object: ManagedObject, with snapshot: RowSnapshot) -> Bool {
        let wasFault = object.isFault || object.snapshot == nil
        object.snapshot = snapshot
        object.fetchedRow = nil
        object.isFault = false
        object.isInaccessible = false
        return wasFault
    }

    /// Fires a fault from the row cache, or the store on a miss.
    func fulfillFault(_ object: ManagedObject) {
        if let row = object.fetchedRow {
            object.fetchedRow = nil
            // No row of the cache changed since the fetch read this one: it is what the cache holds.
            if stalenessInterval < 0, let coordinator = coordinatorStorage,
                coordinator.rowCacheGeneration.current == object.fetchedGeneration
            {
                materialize(object, with: row)
                return
            }
        }
        if let batch = object.faultBatch {
            let members = batch.batch(of: object.objectID).compactMap { registered[$0] }.filter { $0.isFault }
            for member in members { member.faultBatch = nil }
            if members.count > 1, let rows = try? parentSnapshots(for: members.map(\.objectID), fresh: false) {
                for (member, row) in zip(members, rows) {
                    if let row { materialize(member, with: row) }
                }
                if !object.isFault { return }
            }
        }
        object.isFault = false
        let snapshot = (try? parentSnapshots(for: [object.objectID], fresh: false))?[0]
        if let snapshot {
            materialize(object, with: snapshot)
        } else {
            // The row is gone (deleted elsewhere): as with Core Data's shouldDeleteInaccessibleFaults, the
            // object reads as nil values instead of trapping.
            object.isInaccessible = true
            object.snapshot = RowSnapshot(
                values: Array(repeating: .null, count: object.entity.storedProperties.count), version: 0)
        }
    }

    /// The committed members of a to-many relationship of an object.
    func committedToMany(of object: ManagedObject, _ relationship: RelationshipDescription) -> [ManagedObjectID] {
        (try? parentRelatedObjectIDs(of: [object.objectID], through: relationship).first) ?? []
    }

    // MARK: - Inserting and deleting

    /// Inserts a new object; it gets its attributes' default values and `awakeFromInsert()` is called.
    public func insert(_ object: ManagedObject) {
        insert(object, awake: true)
    }

    /// Inserts an object; `awake` gives it its defaults and calls `awakeFromInsert()` (a copy pushed from a
    /// child is awakened apart, before it takes the child's values).
    func insert(_ object: ManagedObject, awake: Bool) {
        assertOnQueue("insert(_:)")
        if object.managedObjectContext === self, registered[object.objectID] != nil {
            if object.deletedFlag { undelete(object) }
            return
        }
        precondition(object.managedObjectContext == nil, "\(object) already belongs to another context")
        precondition(object.objectID.isTemporaryID || !awake, "\(object) is a saved object of another context")
        undoRecorder?.existenceWillChange(object, existed: false)
        object.managedObjectContext = self
        registered[object.objectID] = object
        object.insertedFlag = true
        insertionOrder.willInsert(object)
        insertedSet.insert(object)
        if !pendingInsertsAreInsertedSet { pendingNotification.inserted.insert(object) }
        scheduleProcessing()
        if awake { awaken(object) }
    }

    /// Gives a newly inserted object its attributes' default values and calls `awakeFromInsert()`.
    func awaken(_ object: ManagedObject) {
        // Room for every property at once, as setting a value makes it: growing the changes for the first
        // default and again for a later one was a tenth of creating an object.
        if !object.entity.defaultedAttributes.isEmpty { object.changes.reserveCapacity(object.entity.properties.count) }
        for attribute in object.entity.defaultedAttributes {
            if attribute.isTransient {
                object.transientValues[attribute.index] = attribute.defaultValue
            } else {
                object.changes[attribute.index] = attribute.defaultValue
            }
        }
        object.awakeFromInsert()
    }

    /// Inserts a new object of the named entity.
    /// - Throws: `ObjectStackError` `.unknownEntity` when the model has no such entity (or it is abstract).
    @discardableResult
    public func insertNewObject(forEntityName name: String) throws -> ManagedObject {
        guard let entity = model.entitiesByName[name] else {
            throw ObjectStackError(code: .unknownEntity, message: "the model has no entity named '\(name)'")
        }
        guard !entity.isAbstract else {
            throw ObjectStackError(
                code: .invalidArgument, message: "entity \(name) is abstract and cannot have objects")
        }
        return entity.managedObjectClass.init(entity: entity, insertInto: self)
    }

    /// Marks an object deleted; its delete rules run at the next `processPendingChanges()` (or save).
    public func delete(_ object: ManagedObject) {
        assertOnQueue("delete(_:)")
        guard object.managedObjectContext === self, !object.deletedFlag else { return }
        undoRecorder?.existenceWillChange(object, existed: true)
        object.deletedFlag = true
        deletedSet.insert(object)
        deletionsToPropagate.append(object)
        // An insert not announced yet vanishes from the next notification; one already announced must be
        // announced as deleted, or observers (a fetched results controller) would keep showing it.
        detachPendingInserts()
        pendingNotification.inserted.remove(object)
        if !object.insertedFlag || object.insertAnnounced { pendingNotification.deleted.insert(object) }
        scheduleProcessing()
    }

    private func undelete(_ object: ManagedObject) {
        undoRecorder?.existenceWillChange(object, existed: false)
        object.deletedFlag = false
        deletedSet.remove(object)
        pendingNotification.deleted.remove(object)
    }

    /// Records that an object changed.
    func objectDidChange(_ object: ManagedObject) {
        guard !object.deletedFlag else { return }
        if object.insertedFlag {
            // An insert already announced that changes again is announced as updated, so observers that placed
            // it by its first values (a fetched results controller) see the change.
            guard object.insertAnnounced else { return }
            pendingNotification.updated.insert(object)
            scheduleProcessing()
            return
        }
        changedSet.insert(object)
        pendingNotification.updated.insert(object)
        scheduleProcessing()
    }

    /// A main-queue context processes pending changes at the end of the current main-queue turn, as Core
    /// Data does at the end of a run-loop event; a private context does it after each `perform` block.
    func scheduleProcessing() {
        guard concurrencyType == .mainQueue, !processingScheduled else { return }
        processingScheduled = true
        DispatchQueue.main.async { [weak self] in
            guard let self else { return }
            self.processingScheduled = false
            self.processPendingChanges()
        }
    }
}

/// A weak reference to a context, for lists that must not keep contexts alive.
struct WeakContext: Sendable {
    weak var context: ManagedObjectContext?
}
