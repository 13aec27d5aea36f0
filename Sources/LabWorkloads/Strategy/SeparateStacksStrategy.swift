import LabCore
import ObjectStack

/// A coordinator and store instance per context on the same store; merged by save notification.
public struct SeparateStacksStrategy: StackStrategy {
    public let declaration = ConcurrencyStrategy(
        "separate-stacks", color: "#ff7f0e",
        about: "each background context has its own coordinator and store "
            + "instance on the same store; merged the same way")

    /// Creates the strategy.
    public init() {}

    /// A private context on a coordinator and store instance of its own, its saves merged into the main context.
    public func newBackgroundContext(on stack: LabStack) throws -> ManagedObjectContext {
        let context = stack.backgroundContext(on: try stack.openAnotherCoordinator())
        stack.mergeSavesIntoMain(of: context)
        return context
    }
}
