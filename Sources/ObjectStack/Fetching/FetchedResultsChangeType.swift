/// What happened to an object or a section, as a fetched results controller reports it.
public enum FetchedResultsChangeType: Sendable, Hashable, CustomStringConvertible {
    /// An object or section was added: the new index path (or section index) is in post-change coordinates.
    case insert
    /// An object or section was removed: the old index path (or section index) is in pre-change coordinates.
    case delete
    /// An object's sort or section key changed: from the old index path (pre-change) to the new one
    /// (post-change), which may be equal.
    case move
    /// An object changed without its sort and section keys changing: at the old index path (pre-change),
    /// with its new index path (post-change) too.
    case update

    public var description: String {
        switch self {
        case .insert: return "insert"
        case .delete: return "delete"
        case .move: return "move"
        case .update: return "update"
        }
    }
}
