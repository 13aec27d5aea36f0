import LabCore

/// The stack designs the lab compares, in the order scenarios, listings and charts give them.
public enum StackStrategies {
    /// Every design.
    public static let all: [any StackStrategy] = [
        MainOnlyStrategy(), SharedCoordinatorStrategy(), SeparateStacksStrategy(), NestedContextsStrategy(),
    ]

    /// Every design's declaration.
    public static var designs: [StackDesign] { all.map(\.design) }

    /// The designs that bring a background save into the main context (the merge-cost workload's).
    public static var merging: [StackDesign] { all.filter(\.hasBackgroundContexts).map(\.design) }

    /// The design called `name`, if there is one.
    public static func named(_ name: String) -> (any StackStrategy)? {
        all.first { $0.design.name == name }
    }
}
