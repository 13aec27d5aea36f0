import LabCore

/// The stack designs the lab compares, in the order scenarios, listings and charts give them.
public enum StackStrategies {
    /// Every design.
    public static let all: [any StackStrategy] = [
        MainOnlyStrategy(), SharedCoordinatorStrategy(), SeparateStacksStrategy(), NestedContextsStrategy(),
        ContainerStrategy(), BatchHistoryStrategy(), PinnedGenerationStrategy(), ExtensionStrategy(),
    ]

    /// Every design's declaration (the import workload's).
    public static var designs: [StackDesign] { all.map(\.design) }

    /// The designs whose background work runs in the stack's own process: every workload's but the import's
    /// also runs `extension`.
    public static var inProcess: [StackDesign] { all.filter { !$0.writesInAnotherProcess }.map(\.design) }

    /// The designs that bring a background save of this process into the main context (the merge-cost
    /// workload's).
    public static var merging: [StackDesign] {
        all.filter { $0.hasBackgroundContexts && !$0.writesInAnotherProcess }.map(\.design)
    }

    /// The design called `name`, if there is one.
    public static func named(_ name: String) -> (any StackStrategy)? {
        all.first { $0.design.name == name }
    }
}
