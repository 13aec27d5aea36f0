import LabCore
import ObjectStack

/// Everything on the main-queue context: the naive baseline. Work that would go to a background context runs on
/// the main queue.
public struct MainOnlyStrategy: StackStrategy {
    public let declaration = ConcurrencyStrategy(
        "main-only", color: "#7f7f7f",
        about: "everything on the main-queue context: imports and writes run as "
            + "main-queue blocks")
    public let hasBackgroundContexts = false

    /// Creates the strategy.
    public init() {}

    /// The main context itself.
    public func newBackgroundContext(on stack: LabStack) throws -> ManagedObjectContext { stack.main }
}
