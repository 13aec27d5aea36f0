import LabCore
import ObjectStack

/// The main context and background contexts on one coordinator; each background save is merged into the main
/// context with `mergeChanges(fromContextDidSave:)` on the main queue.
public struct SharedCoordinatorStrategy: StackStrategy {
    public let declaration = ConcurrencyStrategy(
        "shared-coordinator", color: "#1f77b4",
        about: "background private contexts on the main context's "
            + "coordinator; each save merged into the main context on the main queue")

    /// Creates the strategy.
    public init() {}

    /// A private context on the shared coordinator, its saves merged into the main context.
    public func newBackgroundContext(on stack: LabStack) throws -> ManagedObjectContext {
        let context = stack.backgroundContext()
        stack.mergeSavesIntoMain(of: context)
        return context
    }
}
