/// What reading one row of a table by its primary key needs, found by an entity's identity.
///
/// A fault's or `existingObject(with:)`'s read used to find its table, its statement and its row readers by
/// name: three string hashes and a copy of the table's description per row, a fifth of the lookup.
final class SQLitePrimaryKeyRead: Sendable {
    /// `SELECT` of the row columns `WHERE Z_PK = ?`.
    let sql: String
    /// The row readers of the table's entities, by entity code.
    let readers: [Int64: SQLiteRowReader]

    init(sql: String, readers: [Int64: SQLiteRowReader]) {
        self.sql = sql
        self.readers = readers
    }
}
