import Foundation
import LabCore
import ObjectStack

/// The `PersistentContainer` default, as Apple's templates set it up: the view context merges every save made
/// through the coordinator by itself (`automaticallyMergesChangesFromParent`), background work runs on
/// `newBackgroundContext()`, a private context on the same coordinator, saving straight to it.
public struct ContainerStrategy: StackStrategy {
    public let declaration = ConcurrencyStrategy(
        "container", color: "#17becf",
        about: "the PersistentContainer default: background contexts from newBackgroundContext() on the view "
            + "context's coordinator; the view context merges their saves by itself "
            + "(automaticallyMergesChangesFromParent)")

    /// Creates the strategy.
    public init() {}

    /// The view context merges saves made through its coordinator by itself.
    public func attachMain(_ main: ManagedObjectContext, to coordinator: PersistentStoreCoordinator)
        -> ManagedObjectContext?
    {
        main.persistentStoreCoordinator = coordinator
        main.automaticallyMergesChangesFromParent = true
        return nil
    }

    /// A private context on the shared coordinator, as `PersistentContainer.newBackgroundContext()` makes.
    public func newBackgroundContext(on stack: LabStack) throws -> ManagedObjectContext {
        let context = stack.backgroundContext()
        stack.timeAutomaticMerges(of: context)
        return context
    }

    /// The seeding is not merged: the other strategies' main contexts never hear of it either.
    public func willSeed(_ stack: LabStack) {
        let main = stack.main
        main.performAndWait { main.automaticallyMergesChangesFromParent = false }
    }

    /// Merging resumes after the seeding.
    public func didSeed(_ stack: LabStack) throws {
        let main = stack.main
        main.performAndWait { main.automaticallyMergesChangesFromParent = true }
    }

    /// Saves, then queues the end of the merge's timing behind the merge the save queued on the main queue.
    public func save(_ context: ManagedObjectContext, on stack: LabStack) throws {
        try context.save()
        stack.endAutomaticMergeTiming(of: context)
    }
}
