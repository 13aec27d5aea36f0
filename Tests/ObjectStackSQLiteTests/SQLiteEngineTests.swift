import CSQLite
import ObjectStackSQLite
import Testing

@Suite("SQLite engine")
struct SQLiteEngineTests {
    @Test("the linked library reports a 3.x version that matches its header")
    func version() {
        #expect(SQLiteEngine.version.hasPrefix("3."))
        #expect(SQLiteEngine.version == String(cString: sqlite3_libversion()))
        #expect(sqlite3_libversion_number() >= 3_035_000, "WAL, RETURNING and strict tables need 3.35 or later")
    }
}
