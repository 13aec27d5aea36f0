/// A piece of SQL with the values bound to its `?` placeholders, in order.
///
/// Values are always bound, never spliced into the text; fragments concatenate with their bindings.
struct SQLFragment: Sendable {
    var sql: String
    var bindings: [SQLValue]

    init(_ sql: String, _ bindings: [SQLValue] = []) {
        self.sql = sql
        self.bindings = bindings
    }

    static func + (lhs: SQLFragment, rhs: SQLFragment) -> SQLFragment {
        SQLFragment(lhs.sql + rhs.sql, lhs.bindings + rhs.bindings)
    }

    static func + (lhs: SQLFragment, rhs: String) -> SQLFragment { SQLFragment(lhs.sql + rhs, lhs.bindings) }
    static func + (lhs: String, rhs: SQLFragment) -> SQLFragment { SQLFragment(lhs + rhs.sql, rhs.bindings) }

    /// The fragments joined by a separator.
    static func joined(_ parts: [SQLFragment], separator: String) -> SQLFragment {
        var result = SQLFragment("")
        for (index, part) in parts.enumerated() {
            if index > 0 { result.sql += separator }
            result.sql += part.sql
            result.bindings += part.bindings
        }
        return result
    }
}
