import CSQLite
import Foundation
import ObjectStack

extension SQLiteStore: StoreIntegrityChecking {
    /// The problems `PRAGMA integrity_check` reports (every page, index and row of the file, the write-ahead log's
    /// frames included), one a line; empty when it says `ok`.
    ///
    /// For example:
    /// ```swift
    /// let problems = try (coordinator.persistentStores[0] as! SQLiteStore).checkIntegrity()
    /// ```
    /// - Complexity: O(n) in the file's pages.
    /// - Throws: `StoreError` when the check cannot run (the store is closed). A page so damaged that SQLite stops
    ///   the check (`SQLITE_CORRUPT`) is a problem found, not an error.
    public func checkIntegrity() throws -> [String] {
        do {
            let rows = try withConnection { try $0.strings("PRAGMA integrity_check") }
            guard rows != ["ok"] else { return [] }
            // A row may hold several problems, one a line, under a `*** in database main ***` heading.
            return rows.flatMap { $0.split(separator: "\n").map(String.init) }.filter {
                !$0.hasPrefix("*** in database")
            }
        } catch let error as StoreError where error.code == .corrupt {
            return ["the check stopped: \(error.message)"]
        }
    }
}
