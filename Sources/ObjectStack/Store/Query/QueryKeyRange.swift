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

    /// Whether a non-nil value of the column's kind lies in the range (`.all` holds nil too).
    public func contains(_ value: StoreValue) -> Bool {
        switch self {
        case .all: return true
        case .values(let values): return values.contains { ValueComparison.sortOrder($0, value, caseInsensitive: false) == .orderedSame }
        case .range(let lower, let lowerInclusive, let upper, let upperInclusive):
            if value.isNull { return false }
            if let lower {
                let order = ValueComparison.sortOrder(value, lower, caseInsensitive: false)
                if order == .orderedAscending || (order == .orderedSame && !lowerInclusive) { return false }
            }
            if let upper {
                let order = ValueComparison.sortOrder(value, upper, caseInsensitive: false)
                if order == .orderedDescending || (order == .orderedSame && !upperInclusive) { return false }
            }
            return true
        case .prefix(let prefix):
            guard case .string(let text) = value else { return false }
            return text.utf8.starts(with: prefix.utf8)
        }
    }
}
