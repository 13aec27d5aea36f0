import Foundation

/// How many objects of each entity the model-driven generator makes, and how full each to-many is.
///
/// In a scenario file (`population:`), or built in code:
/// ```yaml
/// population:
///   count: 1000        # objects of each root entity (default 100)
///   children: 0-4      # each to-many: 0 to 4 children, uniformly (default 0-4)
///   Mood: 5000         # an integer: exactly this many Mood objects
///   Continent: 0.05    # a fraction: this ratio to `count` (50 here)
/// ```
/// An entity not named gets a count from the relationships that own it: a root entity (one no to-many owns
/// through a to-one inverse) gets `count`; an entity some to-many owns gets its owners' count times the mean
/// number of children (the largest such product when several to-manys own it); the other side of a one-to-one
/// gets its partner's count. A to-many's children are drawn uniformly from `children`, clamped to the
/// relationship's own minimum and maximum counts, which always win. Then an entity not named grows wherever a
/// required relationship needs more objects (`PopulationSizing`: a one-to-one partner each, a to-many's minimum, an
/// owner for every child under a maximum); a named count that is too small is refused, naming it and the count that
/// works. So no `population:` is needed for the generator to satisfy a model.
public struct PopulationSpec: Sendable, Hashable {
    /// An entity's size: a number of objects, or a ratio to the root count.
    public enum Count: Sendable, Hashable, CustomStringConvertible {
        case objects(Int)
        case ratio(Double)

        /// The number of objects for a root count.
        public func objects(rootCount: Int) -> Int {
            switch self {
            case .objects(let count): return count
            case .ratio(let ratio): return Int((ratio * Double(rootCount)).rounded())
            }
        }

        public var description: String {
            switch self {
            case .objects(let count): return String(count)
            case .ratio(let ratio): return "\(ratio)×count"
            }
        }
    }

    /// Objects of each root entity.
    public var rootCount: Int
    /// Counts given by entity name; the others are derived (see the type's description).
    public var counts: [String: Count]
    /// The children each to-many gets, drawn uniformly from this range before the relationship's own bounds.
    public var children: ClosedRange<Int>
    /// The share of optional attributes and optional to-ones left nil.
    public var nilShare: Double
    /// The share of attributes with a default value that keep it.
    public var defaultShare: Double

    /// The keys of a scenario's `population:` besides entity names.
    public static let keys = ["count", "children"]

    /// A population of `rootCount` objects per root entity.
    public init(
        rootCount: Int = 100, counts: [String: Count] = [:], children: ClosedRange<Int> = 0...4, nilShare: Double = 0.2,
        defaultShare: Double = 0.25
    ) {
        self.rootCount = rootCount
        self.counts = counts
        self.children = children
        self.nilShare = nilShare
        self.defaultShare = defaultShare
    }

    /// Reads a scenario's `population:` mapping; `place` names it in errors (`FILE:LINE`).
    /// - Throws: `LabError.invalidScenario` naming the key and what was expected.
    public init(_ values: [String: ScenarioValue], place: (String) -> String) throws {
        self.init()
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            switch key {
            case "count":
                guard let count = value.integerValue, count >= 0 else {
                    throw LabError(
                        .invalidScenario, "\(place(key)): population count is '\(value)'; expected an integer ≥ 0")
                }
                rootCount = count
            case "children":
                guard let range = Self.range(value) else {
                    throw LabError(
                        .invalidScenario,
                        "\(place(key)): population children is '\(value)'; expected a range such as 0-4, or a maximum such as 4"
                    )
                }
                children = range
            default:
                switch value {
                case .integer(let count) where count >= 0: counts[key] = .objects(count)
                case .number(let ratio) where ratio >= 0 && ratio.isFinite: counts[key] = .ratio(ratio)
                default:
                    throw LabError(
                        .invalidScenario,
                        "\(place(key)): population of \(key) is '\(value)'; expected an integer count or a decimal ratio to count, such as 0.5"
                    )
                }
            }
        }
    }

    /// `0-4`, `2..5` or a bare maximum `4` (meaning `0-4`).
    public static func range(_ value: ScenarioValue) -> ClosedRange<Int>? {
        if let maximum = value.integerValue { return maximum >= 0 ? 0...maximum : nil }
        guard case .text(let text) = value else { return nil }
        let parts = text.replacingOccurrences(of: "..", with: "-").split(separator: "-").map {
            Int($0.trimmingCharacters(in: .whitespaces))
        }
        guard parts.count == 2, let low = parts[0], let high = parts[1], low >= 0, low <= high else { return nil }
        return low...high
    }
}
