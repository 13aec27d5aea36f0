import LabCore

/// The concurrency strategies the lab compares, in the order scenarios, listings and charts give them.
public enum StackStrategies {
    /// Every strategy.
    public static let all: [any StackStrategy] = [
        MainOnlyStrategy(), SharedCoordinatorStrategy(), SeparateStacksStrategy(), NestedContextsStrategy(),
        ContainerStrategy(), BatchHistoryStrategy(), PinnedGenerationStrategy(), ExtensionStrategy(),
    ]

    /// Every strategy's declaration (the import workload's).
    public static var declarations: [ConcurrencyStrategy] { all.map(\.declaration) }

    /// The strategies whose background work runs in the stack's own process: every workload's but the import's
    /// also runs `extension`.
    public static var inProcess: [ConcurrencyStrategy] { all.filter { !$0.writesInAnotherProcess }.map(\.declaration) }

    /// The strategies that bring a background save of this process into the main context (the merge-cost
    /// workload's).
    public static var merging: [ConcurrencyStrategy] {
        all.filter { $0.hasBackgroundContexts && !$0.writesInAnotherProcess }.map(\.declaration)
    }

    /// The strategy called `name`, if there is one.
    public static func named(_ name: String) -> (any StackStrategy)? {
        all.first { $0.declaration.name == name }
    }
}
