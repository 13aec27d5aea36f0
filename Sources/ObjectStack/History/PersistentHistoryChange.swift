import Foundation

/// One object's change in a persistent history transaction: Core Data's `NSPersistentHistoryChange`.
///
/// - Note: A value: safe to pass between threads and contexts.
public struct PersistentHistoryChange: Sendable, CustomStringConvertible {
    /// The change's number, unique within its store's history.
    public let changeID: Int64
    /// The object that changed.
    public let changedObjectID: ManagedObjectID
    /// Insert, update or delete.
    public let changeType: PersistentHistoryChangeType
    /// For an update, the names of the stored properties (attributes and to-one relationships) the transaction
    /// changed; nil for an insert or a delete (as in Core Data).
    public let updatedProperties: Set<String>?
    /// For a delete, the values of the attributes the model marks `preservesValueInHistoryOnDeletion`, by name (an
    /// attribute whose value was nil is absent); nil for an insert or an update, and for a delete when the entity
    /// preserves nothing.
    public let tombstoneValues: [String: StoreValue]?
    /// The token of the transaction the change belongs to.
    public let transactionToken: PersistentHistoryToken

    /// The tombstone as Core Data gives it: each preserved attribute's value as `value(forKey:)` would return it.
    public var tombstone: [String: Any]? {
        guard let tombstoneValues else { return nil }
        var result: [String: Any] = [:]
        for (name, value) in tombstoneValues {
            guard let attribute = changedObjectID.entity.attributesByName[name] else { continue }
            result[name] = attribute.type.object(from: value)
        }
        return result
    }

    /// The changed object's entity.
    public var changedEntity: EntityDescription { changedObjectID.entity }

    public var description: String {
        var text = "\(changeType) \(changedObjectID)"
        if let updatedProperties { text += " [\(updatedProperties.sorted().joined(separator: ", "))]" }
        if let tombstoneValues {
            text +=
                " tombstone {\(tombstoneValues.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))}"
        }
        return text
    }
}
