/// A store that can check its file's integrity: what a crash or a power cut must never leave behind.
///
/// For example:
/// ```swift
/// if let checking = store as? any StoreIntegrityChecking {
///     let problems = try checking.checkIntegrity()
///     if !problems.isEmpty { print(problems.joined(separator: "\n")) }
/// }
/// ```
/// SQLite answers with `PRAGMA integrity_check`; LMDB walks every row and every index, uniqueness, referrer and
/// link entry, and checks each against the other.
public protocol StoreIntegrityChecking: PersistentStore {
    /// The problems found, each in words; empty when the store is whole.
    /// - Complexity: O(n) in the rows and index entries: every page of the store is read.
    /// - Throws: `StoreError` when the store cannot be read at all (a damaged page the engine refuses).
    func checkIntegrity() throws -> [String]
}
