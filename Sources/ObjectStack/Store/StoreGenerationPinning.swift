/// A store that can hold one generation of its data for readers while writers go on: the basis of query
/// generations (`ManagedObjectContext.setQueryGenerationFrom(_:)`).
public protocol StoreGenerationPinning: PersistentStore {
    /// A reader that sees the store as it is now, whatever is written later, until it is released (deinit).
    /// - Throws: `StoreError` when the store cannot hold a reader.
    func pinGeneration() throws -> any StoreGenerationReader
}

/// Reads one pinned generation of a store: the reads a context makes of its store, at that generation.
/// - Note: Thread-safe: contexts sharing a generation read it from their own queues.
public protocol StoreGenerationReader: AnyObject, Sendable {
    /// Runs a fetch at the generation.
    func execute(_ request: StoreFetchRequest) throws -> StoreFetchResult
    /// The rows of the given objects at the generation, nil for those not in the store then.
    func snapshots(for objectIDs: [ManagedObjectID]) throws -> [RowSnapshot?]
    /// The members of a to-many relationship of each object at the generation.
    func relatedObjectIDs(of objectIDs: [ManagedObjectID], through relationship: RelationshipDescription) throws
        -> [[ManagedObjectID]]
}
