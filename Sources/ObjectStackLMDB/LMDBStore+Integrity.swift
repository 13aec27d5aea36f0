import Foundation
import ObjectStack

extension LMDBStore: StoreIntegrityChecking {
    /// Walks the whole store in one read transaction and checks every row against its index, uniqueness, referrer
    /// and link entries, and each of those against the rows (`LMDBIntegrityWalk`); empty when the store is whole.
    ///
    /// For example:
    /// ```swift
    /// let problems = try (coordinator.persistentStores[0] as! LMDBStore).checkIntegrity()
    /// ```
    /// - Complexity: O(n log n) in the rows and entries: every row is read and each of its entries looked up.
    /// - Throws: `StoreError` when LMDB refuses a page (`MDB_CORRUPTED`, `MDB_PAGE_NOTFOUND`) or the store is closed.
    public func checkIntegrity() throws -> [String] {
        try checkOpen()
        let entities = codec.entitiesByCode.compactMap { $0 }
        return try environment.read { txn in
            try LMDBIntegrityWalk(txn: txn, schema: schema, codec: codec, entities: entities).run()
        }
    }
}
