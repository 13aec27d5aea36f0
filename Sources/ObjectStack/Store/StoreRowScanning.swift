import Foundation

/// A store that hands out its rows in primary-key order, a window at a time, and takes rows with the keys
/// they had: what a migration copies through, without objects or contexts.
///
/// For example:
/// ```swift
/// var after: Int64 = 0
/// while case let rows = try store.rows(of: pod, after: after, limit: 5_000), let last = rows.last {
///     after = last.0.key
/// }
/// ```
public protocol StoreRowScanning: PersistentStore {
    /// Up to `limit` rows of exactly `entity` (not its sub-entities) whose keys are greater than `key`, in key
    /// order.
    /// - Complexity: O(log n + limit): a range read on the primary key, never a scan from the start.
    func rows(of entity: EntityDescription, after key: Int64, limit: Int) throws -> [(ManagedObjectID, RowSnapshot)]

    /// Makes sure `newObjectIDs` never hands out a key up to `key` for the entity's hierarchy: the keys of rows
    /// inserted with their old keys.
    func reserveKeys(through key: Int64, for entity: EntityDescription) throws
}
