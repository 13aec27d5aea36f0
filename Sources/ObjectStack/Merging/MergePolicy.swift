/// How a save resolves conflicts: objects changed in the store (or a parent) since the context read them,
/// and uniqueness-constraint clashes.
///
/// The policies are Core Data's:
/// - `.error`: the save fails with an `ObjectStackError` listing each conflict; nothing is written.
/// - `.mergeByPropertyStoreTrump`: per property, the store's changes win over the context's.
/// - `.mergeByPropertyObjectTrump`: per property, the context's changes win over the store's.
/// - `.overwrite`: the context's whole object is written over the store's.
/// - `.rollback`: the context's changes to the conflicting objects are dropped for the store's.
public enum MergePolicy: Sendable, Hashable, CaseIterable {
    case error
    case mergeByPropertyStoreTrump
    case mergeByPropertyObjectTrump
    case overwrite
    case rollback
}
