/// A save's prepared statements by a key of the caller's (an entity, a table), each prepared on first use.
///
/// The connection caches statements by their SQL text, so finding one there means building and hashing the
/// text; a save that writes 100,000 rows asks for the same few statements once per row, and building the text
/// each time was a fifth of an update.
struct SaveStatements<Key: Hashable> {
    private var statements: [Key: SQLiteStatement] = [:]

    /// The statement for `key`, prepared from `sql()` on `db` the first time.
    mutating func statement(_ key: Key, on db: SQLiteConnection, sql: () -> String) throws -> SQLiteStatement {
        if let statement = statements[key] { return statement }
        let statement = try db.statement(sql())
        statements[key] = statement
        return statement
    }
}
