/// The part of an index's first column a plan reads.
///
/// Values are of the column's stored kind (the planner converts constants, and leaves a comparison it cannot
/// convert to the residual predicate), never nil inside a range: an ordering comparison with nil is false.
public enum QueryKeyRange: Sendable, CustomStringConvertible {
    /// The whole index, in order.
    case all
    /// One seek per value (`=` or `IN`), ascending in sort order, without repeats.
    case values([StoreValue])
    /// Values between the bounds; a missing bound is open (nil values are never in a range).
    case range(lower: StoreValue?, lowerInclusive: Bool, upper: StoreValue?, upperInclusive: Bool)
    /// Strings that start with the prefix (`BEGINSWITH`).
    case prefix(String)

    public var description: String {
        switch self {
        case .all: return "all"
        case .values(let values):
            return values.count == 1 ? "= \(values[0])" : "IN \(values.count) values"
        case .range(let lower, let lowerInclusive, let upper, let upperInclusive):
            var parts: [String] = []
            if let lower { parts.append((lowerInclusive ? ">= " : "> ") + "\(lower)") }
            if let upper { parts.append((upperInclusive ? "<= " : "< ") + "\(upper)") }
            return parts.joined(separator: " AND ")
        case .prefix(let prefix): return "BEGINSWITH \"\(prefix)\""
        }
    }
}
