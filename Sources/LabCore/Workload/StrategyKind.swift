/// The four Core Data stack designs the lab compares.
public enum StrategyKind: String, Sendable, CaseIterable {
    /// Everything on the main-queue context: the naive baseline. Work that would go to a background context
    /// runs on the main queue.
    case mainOnly = "main-only"
    /// The main context and background contexts on one coordinator; background saves are merged into the
    /// main context with `mergeChanges(fromContextDidSave:)` on the main queue.
    case sharedCoordinator = "shared-coordinator"
    /// A coordinator and store instance per context on the same store; merged by save notification.
    case separateStacks = "separate-stacks"
    /// A private root saving context on the coordinator, the main context its child, background contexts
    /// children of the main context: a background save passes through the main queue, then the main context
    /// saves into the root and the root saves to the store.
    case nestedContexts = "nested-contexts"

    /// Whether background work runs on contexts other than the main one.
    public var hasBackgroundContexts: Bool { self != .mainOnly }
}
