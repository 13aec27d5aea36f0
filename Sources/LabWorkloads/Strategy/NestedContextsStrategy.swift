import LabCore
import ObjectStack

/// The MagicalRecord stack: a private root saving context on the coordinator, the main context its child,
/// background contexts children of the main context. A background save passes through the main queue, then the
/// main context saves into the root and the root saves to the store.
public struct NestedContextsStrategy: StackStrategy {
    public let declaration = ConcurrencyStrategy(
        "nested-contexts", color: "#2ca02c",
        about: "a private root context on the coordinator, the main context "
            + "its child, background contexts children of the main context: child → main → root → store")

    /// Creates the strategy.
    public init() {}

    /// A private root on the coordinator, the main context its child.
    public func attachMain(_ main: ManagedObjectContext, to coordinator: PersistentStoreCoordinator)
        -> ManagedObjectContext?
    {
        let root = ManagedObjectContext(concurrencyType: .privateQueue)
        root.name = "root"
        root.persistentStoreCoordinator = coordinator
        root.mergePolicy = .mergeByPropertyObjectTrump
        main.parent = root
        return root
    }

    /// A private child of the main context.
    public func newBackgroundContext(on stack: LabStack) throws -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.parent = stack.main
        stack.prepareBackground(context)
        return context
    }

    /// The child's save is applied by the main queue, then the main context saves into the root on the main
    /// queue and the root saves to the store on its own queue; the main-queue part of that chain is logged in
    /// the stack's `merges`.
    public func save(_ context: ManagedObjectContext, on stack: LabStack) throws {
        guard context !== stack.main, let root = stack.savingParent else {
            try context.save()
            return
        }
        let start = stack.clock.nowMilliseconds()
        try context.save()  // into the main context: runs on the main queue while this queue waits
        let main = stack.main
        try main.performAndWait { try main.save() }  // into the root
        stack.merges.record(milliseconds: stack.clock.milliseconds(since: start))
        try root.performAndWait { try root.save() }
    }
}
