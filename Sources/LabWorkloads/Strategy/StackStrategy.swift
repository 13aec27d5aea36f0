import LabCore
import ObjectStack

/// How one Core Data stack design builds and uses its stack: where the main context sits, what a background
/// context is, and how a background save reaches the store and the main context. `LabStack` builds every
/// design through this; a new design is a new conforming type and a line in `StackStrategies.all`, and the lab
/// core learns of it only through its `design` declaration.
///
/// For example, a design whose background contexts are children of a private root:
/// ```swift
/// struct RootChildrenStrategy: StackStrategy {
///     let design = StackDesign("root-children", about: "background contexts are children of a private root")
///     func newBackgroundContext(on stack: LabStack) throws -> ManagedObjectContext { … }
/// }
/// ```
public protocol StackStrategy: Sendable {
    /// The design as the lab's scenarios, CSV and charts know it (the `strategy` parameter's value).
    var design: StackDesign { get }
    /// Whether background work runs on contexts other than the main one, whose saves are then brought into it
    /// (the run's `merges` columns are empty otherwise).
    var hasBackgroundContexts: Bool { get }
    /// Connects the new main-queue context to the stack's coordinator, and returns the context the design puts
    /// between them, if any (a private root saving context).
    func attachMain(_ main: ManagedObjectContext, to coordinator: PersistentStoreCoordinator) -> ManagedObjectContext?
    /// A context for background work on `stack`, set up and observed as the design does.
    func newBackgroundContext(on stack: LabStack) throws -> ManagedObjectContext
    /// Saves `context`'s changes all the way to the store, as the design does; called on the context's queue.
    func save(_ context: ManagedObjectContext, on stack: LabStack) throws
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
}
