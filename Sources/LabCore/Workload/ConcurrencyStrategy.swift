/// A Core Data stack design a workload runs on, as the workload declares it: the value of the `strategy`
/// parameter and CSV column, what the design does, and its colour in every chart.
///
/// The lab core knows designs only by these declarations: which designs exist, and how a stack is built on
/// each, is the business of the workloads' module.
///
/// For example:
/// ```swift
/// static let separateStacks = StackDesign(
///     "separate-stacks", color: "#ff7f0e", about: "a coordinator and store instance per context on the same store")
/// ```
public struct StackDesign: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The design's name: the `strategy` parameter's value.
    public let name: String
    /// One line on how the design builds its stack.
    public let about: String
    /// Its colour in charts (`#1f77b4`), so a design looks the same on every chart; nil for the next free one.
    public let color: String?

    /// Declares a design.
    public init(_ name: String, color: String? = nil, about: String = "") {
        self.name = name
        self.color = color
        self.about = about
    }

    public static func == (lhs: StackDesign, rhs: StackDesign) -> Bool { lhs.name == rhs.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
    public var description: String { name }
}
