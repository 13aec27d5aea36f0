/// What a change in persistent history did to its object: Core Data's `NSPersistentHistoryChangeType`.
public enum PersistentHistoryChangeType: Int, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The object was inserted.
    case insert = 0
    /// Some of the object's stored properties changed (`PersistentHistoryChange.updatedProperties` names them).
    case update = 1
    /// The object was deleted (`PersistentHistoryChange.tombstone` holds what the model keeps of it).
    case delete = 2

    public var description: String {
        switch self {
        case .insert: return "insert"
        case .update: return "update"
        case .delete: return "delete"
        }
    }
}
