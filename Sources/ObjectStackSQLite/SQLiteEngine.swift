import CSQLite

/// Facts about the SQLite library this build links (libsqlite3 through the `CSQLite` system module).
///
/// The SQLite store itself arrives with its own issue; the lab records this version with every result.
public enum SQLiteEngine {
    /// The linked SQLite version, such as "3.40.1".
    public static var version: String { String(cString: sqlite3_libversion()) }
}
