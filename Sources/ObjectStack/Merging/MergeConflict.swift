/// An object whose row changed in the store after the saving context read it (optimistic locking).
///
/// Holds the values as the context cached them when it read the object, as they are in the store now,
/// and as the context wants to save them, so a caller can decide, or a merge policy can resolve it.
public struct MergeConflict: Sendable, CustomStringConvertible {
    /// The object in conflict.
    public let objectID: ManagedObjectID
    /// The row version the context read.
    public let cachedVersion: Int64
    /// The row version in the store now (nil when the row was deleted there).
    public let storeVersion: Int64?
    /// The values the context read (committed values), by property name.
    public let cachedValues: [String: StoreValue]
    /// The values in the store now, by property name (nil when the row was deleted there).
    public let storeValues: [String: StoreValue]?
    /// The values the context is saving, by property name.
    public let objectValues: [String: StoreValue]

    /// Creates a merge conflict.
    public init(
        objectID: ManagedObjectID, cachedVersion: Int64, storeVersion: Int64?,
        cachedValues: [String: StoreValue], storeValues: [String: StoreValue]?, objectValues: [String: StoreValue]
    ) {
        self.objectID = objectID
        self.cachedVersion = cachedVersion
        self.storeVersion = storeVersion
        self.cachedValues = cachedValues
        self.storeValues = storeValues
        self.objectValues = objectValues
    }

    public var description: String {
        let stored = storeVersion.map { "version \($0)" } ?? "deleted"
        return "\(objectID.entityName) \(objectID): read at version \(cachedVersion), store has \(stored)"
    }
}
