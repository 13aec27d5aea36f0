/// A sort key of a fetch request: a key path (through to-one relationships) and a direction.
///
/// For example: `SortKey("author.name")`, `SortKey("pages", ascending: false)`.
///
/// Ordering, the same on every store:
/// - `nil` sorts before every value (last when descending);
/// - numbers (integers, doubles, decimals, booleans) by value;
/// - strings by Unicode code point, which is the byte order of their UTF-8 (SQLite's BINARY collation,
///   LMDB's memcmp): "B" < "a" < "é". With `caseInsensitive`, strings are case-folded first ("a" == "A");
/// - dates by time, data by bytes, UUIDs by their uppercase string;
/// - rows equal on every key, and fetches without sort keys, come in primary-key order (the order of insertion).
public struct SortKey: Sendable, Hashable, CustomStringConvertible {
    /// The key path sorted on.
    public let key: String
    /// Ascending (the default) or descending.
    public let ascending: Bool
    /// Whether strings are compared after case folding.
    public let caseInsensitive: Bool

    /// Creates a sort key.
    public init(_ key: String, ascending: Bool = true, caseInsensitive: Bool = false) {
        self.key = key
        self.ascending = ascending
        self.caseInsensitive = caseInsensitive
    }

    public var description: String {
        "\(key) \(ascending ? "ASC" : "DESC")\(caseInsensitive ? " [c]" : "")"
    }
}
