import LabCore
import ObjectStack

/// How one Core Data concurrency strategy builds and uses its stack: where the main context sits, what a background
/// context is, and how a background save reaches the store and the main context. `LabStack` builds every
/// strategy through this; a new strategy is a new conforming type and a line in `StackStrategies.all`, and the lab
/// core learns of it only through its `strategy` declaration.
///
/// For example, a strategy whose background contexts are children of a private root:
/// ```swift
/// struct RootChildrenStrategy: StackStrategy {
///     let declaration = ConcurrencyStrategy(
///         "root-children", about: "background contexts are children of a private root")
///     func newBackgroundContext(on stack: LabStack) throws -> ManagedObjectContext { … }
/// }
/// ```
public protocol StackStrategy: Sendable {
    /// The strategy as the lab's scenarios, CSV and charts know it (the `strategy` parameter's value).
    var declaration: ConcurrencyStrategy { get }
    /// Whether background work runs on contexts other than the main one, whose saves are then brought into it
    /// (the run's `merges` columns are empty otherwise).
    var hasBackgroundContexts: Bool { get }
    /// Connects the new main-queue context to the stack's coordinator, and returns the context the strategy puts
    /// between them, if any (a private root saving context).
    func attachMain(_ main: ManagedObjectContext, to coordinator: PersistentStoreCoordinator) -> ManagedObjectContext?
    /// A context for background work on `stack`, set up and observed as the strategy does.
    func newBackgroundContext(on stack: LabStack) throws -> ManagedObjectContext
    /// Saves `context`'s changes all the way to the store, as the strategy does; called on the context's queue.
    func save(_ context: ManagedObjectContext, on stack: LabStack) throws
    /// The options every store of the stack is added with (persistent history, remote change notifications).
    var storeOptions: [String: String] { get }
    /// Whether the import workload writes with batch insert requests instead of finding or creating objects.
    var importsWithBatchInserts: Bool { get }
    /// Whether the background work runs in another process (an app extension) rather than in the stack's own
    /// contexts: only the import workload declares such a strategy.
    var writesInAnotherProcess: Bool { get }
    /// Sets up what the strategy keeps running beside the main context once the stack is built (a history merger,
    /// a frame timer, a pinned generation); called on the main thread, once. Anything started is stopped through
    /// `LabStack.onClose`.
    func didBuild(_ stack: LabStack) throws
    /// Called before the store is seeded outside the strategy (a main context that merges every save stops hearing).
    func willSeed(_ stack: LabStack)
    /// Called after the store was seeded outside the strategy (a pinned main context moves to the seeded data).
    func didSeed(_ stack: LabStack) throws
    /// Returns once every background save made so far has reached the main context the strategy's way (its merges
    /// ran on the main queue).
    func catchUp(on stack: LabStack) async throws
}

extension StackStrategy {
    public var hasBackgroundContexts: Bool { true }

    public func attachMain(_ main: ManagedObjectContext, to coordinator: PersistentStoreCoordinator)
        -> ManagedObjectContext?
    {
        main.persistentStoreCoordinator = coordinator
        return nil
    }

    public func save(_ context: ManagedObjectContext, on stack: LabStack) throws {
        try context.save()
    }

    public var storeOptions: [String: String] { [:] }
    public var importsWithBatchInserts: Bool { false }
    public var writesInAnotherProcess: Bool { false }
    public func didBuild(_ stack: LabStack) throws {}
    public func willSeed(_ stack: LabStack) {}
    public func didSeed(_ stack: LabStack) throws {}

    /// The merges a save queued on the main queue have run once the main queue has run everything queued so far.
    public func catchUp(on stack: LabStack) async throws {
        _ = try? await stack.main.perform { 0 }
    }
}
