/// A Core Data concurrency strategy a workload runs on, as the workload declares it: the value of the `strategy`
/// parameter and CSV column, what the strategy does, and its colour in every chart.
///
/// The lab core knows strategies only by these declarations: which strategies exist, and how a stack is built on
/// each, is the business of the workloads' module.
///
/// For example:
/// ```swift
/// static let separateStacks = ConcurrencyStrategy(
///     "separate-stacks", color: "#ff7f0e", about: "a coordinator and store instance per context on the same store")
/// ```
public struct ConcurrencyStrategy: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The strategy's name: the `strategy` parameter's value.
    public let name: String
    /// One line on how the strategy builds its stack.
    public let about: String
    /// Its colour in charts (`#1f77b4`), so a strategy looks the same on every chart; nil for the next free one.
    public let color: String?

    /// Declares a strategy.
    public init(_ name: String, color: String? = nil, about: String = "") {
        self.name = name
        self.color = color
        self.about = about
    }

    public static func == (lhs: ConcurrencyStrategy, rhs: ConcurrencyStrategy) -> Bool { lhs.name == rhs.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
    public var description: String { name }
}
