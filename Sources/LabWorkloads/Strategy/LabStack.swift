import Foundation
import LabCore
import ObjectStack
import Synchronization

/// A Core Data stack built by one of the lab's concurrency strategies (`StackStrategy`) on a fresh store: the
/// main-queue context the UI reads, background contexts for work, and the strategy's way of bringing background saves
/// into the main context.
///
/// For example:
/// ```swift
/// let stack = try LabStack(strategy: SeparateStacksStrategy(), store: .sqlite, model: PodModel.make(), in: folder)
/// defer { stack.close() }
/// let background = try stack.newBackgroundContext()
/// try await background.perform { /* insert */ try stack.save(background) }
/// try await stack.drainMainQueue()
/// ```
/// - Note: Thread-safe to call from any queue; each context is used on its own queue.
public final class LabStack: @unchecked Sendable {
    // @unchecked: `coordinators` and `observers` are behind `registry`; the contexts are Sendable and used on their
    // own queues; everything else is immutable after init.

    /// The strategy.
    public let strategy: any StackStrategy
    /// The store kind.
    public let store: StoreKind
    /// The run's folder: the store files live here.
    public let directory: URL
    /// The main-queue context: the UI's.
    public let main: ManagedObjectContext
    /// Main-thread time of each merge into the main context.
    public let merges = MergeLog()
    /// The clock merges and saves are timed with.
    public let clock: any LabClock

    private let model: ManagedObjectModel
    private let location: URL
    /// The options every store of the stack opens with: the strategy's, then the run's (`durability`).
    public let storeOptions: [String: String]
    /// The context the strategy puts between the main context and the coordinator (nested contexts' private
    /// root), if any.
    public let savingParent: ManagedObjectContext?
    private let registry = Mutex(Registry())

    private struct Registry: @unchecked Sendable {
        // @unchecked: only reached through the mutex; observer tokens are opaque handles.
        var coordinators: [PersistentStoreCoordinator] = []
        var observers: [any NSObjectProtocol] = []
        var closers: [@Sendable () -> Void] = []
        var parts: [any AnyObject & Sendable] = []
    }

    /// Builds the stack on a fresh store in `directory` (created if needed; the in-memory store ignores it), every
    /// store of it opened with the strategy's options and `options` (the run's, such as `durability`).
    /// - Throws: the store's error when it cannot be opened.
    public init(
        strategy: any StackStrategy, store: StoreKind, model: ManagedObjectModel, in directory: URL,
        clock: any LabClock = SystemClock(), options: [String: String] = [:]
    ) throws {
        self.clock = clock
        self.strategy = strategy
        self.store = store
        self.directory = directory
        self.model = model
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        location = store.location(in: directory)
        storeOptions = strategy.storeOptions.merging(options) { $1 }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: store.storeType, at: location, options: storeOptions)
        registry.withLock { $0.coordinators = [coordinator] }
        main = ManagedObjectContext(concurrencyType: .mainQueue)
        main.name = "main"
        savingParent = strategy.attachMain(main, to: coordinator)
        main.mergePolicy = .mergeByPropertyObjectTrump
        do {
            try strategy.didBuild(self)
        } catch {
            close()
            throw error
        }
    }

    /// A coordinator with the store at `url` open: the lab's one way to open a store outside a concurrency strategy (a
    /// seeded store, a store to explain, hold, migrate or kill). `url` nil opens a fresh in-memory store.
    /// - Throws: the store's error when it cannot be opened.
    public static func openCoordinator(
        store: StoreKind, at url: URL?, model: ManagedObjectModel, options: [String: String] = [:]
    ) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let location = url ?? URL(string: "memory://stacklab-\(UUID().uuidString)")!
        try coordinator.addPersistentStore(type: store.storeType, at: location, options: options)
        return coordinator
    }

    /// A private-queue context on a coordinator `openCoordinator` opened.
    public static func openContext(
        store: StoreKind, at url: URL?, model: ManagedObjectModel, name: String? = nil,
        options: [String: String] = [:]
    ) throws -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.name = name
        context.persistentStoreCoordinator = try openCoordinator(store: store, at: url, model: model, options: options)
        return context
    }

    /// The coordinator of the main context's store (the root's, for nested contexts).
    public var primaryCoordinator: PersistentStoreCoordinator {
        registry.withLock { $0.coordinators[0] }
    }

    /// A context for background work, set up as the strategy says: the main context itself (`main-only`), a
    /// private context on the shared coordinator, a private context on a coordinator and store of its own
    /// (`separate-stacks`), or a private child of the main context (`nested-contexts`).
    public func newBackgroundContext() throws -> ManagedObjectContext {
        try strategy.newBackgroundContext(on: self)
    }

    /// A new private-queue background context on `coordinator` (the stack's shared one when nil), named and given the
    /// stack's merge policy: for the strategies.
    public func backgroundContext(on coordinator: PersistentStoreCoordinator? = nil) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator ?? primaryCoordinator
        prepareBackground(context)
        return context
    }

    /// Names a new background context and gives it the stack's merge policy: for the strategies.
    public func prepareBackground(_ context: ManagedObjectContext) {
        context.name = "background"
        context.mergePolicy = .mergeByPropertyObjectTrump
    }

    /// A new coordinator with its own store instance on the stack's store, closed with the stack: for strategies
    /// that give a context a stack of its own.
    /// - Throws: the store's error when it cannot be opened.
    public func openAnotherCoordinator() throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: store.storeType, at: location, options: storeOptions)
        registry.withLock { $0.coordinators.append(coordinator) }
        return coordinator
    }

    /// The store's location: its file (or the in-memory store's URL), for a strategy that opens it elsewhere.
    public var storeLocation: URL { location }

    /// Runs `body` when the stack closes, before its stores do: for what a strategy started (timers, observers).
    public func onClose(_ body: @escaping @Sendable () -> Void) {
        registry.withLock { $0.closers.append(body) }
    }

    /// Keeps a part a strategy runs beside the main context (a history merger, a frame timer) for the stack's life.
    public func attach(_ part: any AnyObject & Sendable) {
        registry.withLock { $0.parts.append(part) }
    }

    /// The part of type `Part` a strategy attached, if any.
    public func attached<Part: AnyObject & Sendable>(_ type: Part.Type) -> Part? {
        registry.withLock { registry in registry.parts.lazy.compactMap { $0 as? Part }.first }
    }

    /// Keeps a notification observer until the stack closes.
    public func keep(observer: any NSObjectProtocol) {
        registry.withLock { $0.observers.append(observer) }
    }

    /// Merges every save of `context` into the main context on the main queue, as an app's observer would, and
    /// logs each merge's main-thread time in `merges`.
    public func mergeSavesIntoMain(of context: ManagedObjectContext) {
        let (main, merges, clock) = (self.main, self.merges, self.clock)
        // queue: nil runs the observer inside the save; it only hands the notification to the main queue, so
        // the merge is main-queue work and the save does not wait for it.
        let token = NotificationCenter.default.addObserver(
            forName: ManagedObjectContext.didSaveNotification, object: context, queue: nil
        ) { notification in
            // Safe to send: the merge reads only the notification's object IDs, never the saving context's objects.
            nonisolated(unsafe) let saved = notification
            main.perform {
                let (_, milliseconds) = clock.measure { main.mergeChanges(fromContextDidSave: saved) }
                merges.record(milliseconds: milliseconds)
            }
        }
        registry.withLock { $0.observers.append(token) }
    }

    /// Saves a background context's changes all the way to the store, as the strategy does. Call it on the
    /// context's queue.
    ///
    /// Under `nested-contexts` the child's save is applied by the main queue, then the main context saves into
    /// the root on the main queue and the root saves to the store on its own queue; the main-queue part of that
    /// chain is logged in `merges`. Under the notification strategies the merge is queued on the main queue.
    public func save(_ context: ManagedObjectContext) throws {
        try strategy.save(context, on: self)
    }

    /// Waits until every background save made so far has reached the main context the strategy's way (for most
    /// strategies: every block queued on the main queue so far, the pending merges, has run).
    @MainActor
    public func drainMainQueue() async throws {
        try await catchUp()
    }

    /// Returns once every background save made so far has been merged into the main context, the strategy's way.
    public func catchUp() async throws {
        try await strategy.catchUp(on: self)
    }

    /// Writes `count` pods (numbers `0..<count` of a `total`-pod naming space) through a throwaway context on the
    /// store, in saves of 5,000, so no context starts with them registered.
    public func seed(count: Int, seed: UInt64) throws {
        guard count > 0 else { return }
        strategy.willSeed(self)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = primaryCoordinator
        let specs = Catalogue.synthetic(count: count, seed: seed).specs
        try context.performAndWait {
            for start in stride(from: 0, to: specs.count, by: 5_000) {
                for spec in specs[start..<min(start + 5_000, specs.count)] { Pod(context: context).apply(spec) }
                try context.save()
                context.reset()
            }
        }
        try strategy.didSeed(self)
    }

    /// Pods in the store, counted through the main context (which sees every merged and saved change).
    @MainActor
    public func storedCount() async throws -> Int {
        try await main.perform { [main] in try main.count(for: FetchRequest<Pod>(entityName: "Pod")) }
    }

    /// Bytes of the store's files (nil for the in-memory store).
    public var storeBytes: Int64? {
        store.isFile ? ProcessUsage.diskBytes(under: directory) : nil
    }

    /// Stops observing, closes every store and removes the run's folder.
    public func close() {
        let (coordinators, observers, closers) = registry.withLock { registry in
            defer { registry = Registry() }
            return (registry.coordinators, registry.observers, registry.closers)
        }
        observers.forEach(NotificationCenter.default.removeObserver)
        closers.forEach { $0() }
        for coordinator in coordinators {
            for store in coordinator.persistentStores { try? coordinator.remove(store) }
        }
        try? FileManager.default.removeItem(at: directory)
    }
}
