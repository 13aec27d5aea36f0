/// What happens to the destination of a relationship when its source object is deleted.
public enum DeleteRule: String, Sendable, Hashable, CaseIterable {
    /// The destination's inverse is cleared.
    case nullify
    /// The destination objects are deleted too.
    case cascade
    /// The source cannot be deleted while the relationship is not empty: the save fails validation.
    case deny
    /// Nothing is done; the destination may keep a reference to the deleted object.
    case noAction
}
