/// A store that carries out batch requests: reads and writes of rows inside one write transaction, without
/// managed objects.
///
/// The coordinator calls `performBatch` under its lock with a body that reads what it needs through the
/// transaction and writes through it; everything the body writes lands when it returns and nothing when it throws.
/// The transaction is also where later writers of the same request hook in (persistent history is written in the
/// same transaction as the rows it describes).
public protocol StoreBatchWriting: PersistentStore {
    /// Runs `body` in one write transaction of the store and commits it; an error rolls everything back.
    ///
    /// `body` may run more than once (LMDB grows a full map and starts the transaction again), so it must not
    /// change anything outside the transaction.
    /// - Parameters:
    ///   - rowsHint: about how many rows the body writes, so a store can make room for them at once.
    ///   - body: reads and writes through the transaction; its result is returned.
    /// - Returns: what `body` returned, once the transaction has committed.
    func performBatch<T>(rowsHint: Int, _ body: (any StoreBatchTransaction) throws -> T) throws -> T
}

/// One write transaction of a `StoreBatchWriting` store: reads see what it wrote so far.
/// - Note: Valid only inside the `performBatch` body it was given to, on that thread.
public protocol StoreBatchTransaction {
    /// The store's identifier (the authority of its object IDs).
    var storeIdentifier: String { get }

    /// Runs a fetch inside the transaction.
    func execute(_ request: StoreFetchRequest) throws -> StoreFetchResult

    /// The current rows of the given objects, nil for those that are not in the store.
    func snapshots(for objectIDs: [ManagedObjectID]) throws -> [RowSnapshot?]

    /// For each object, the members of its to-many relationship in the store.
    func relatedObjectIDs(of objectIDs: [ManagedObjectID], through relationship: RelationshipDescription) throws
        -> [[ManagedObjectID]]

    /// The object whose row holds `values` in the attributes of a uniqueness constraint `declaring` declares, if
    /// any (among the rows of `declaring` and its sub-entities).
    func owner(ofUniqueValues values: [StoreValue], declaring: EntityDescription, attributes: [AttributeDescription])
        throws -> ManagedObjectID?

    /// Reserves `count` primary keys for new rows of `entity`'s hierarchy, as `newObjectIDs` does, and returns the
    /// first (the keys are consecutive). Rolled back with the transaction.
    func reserveKeys(for entity: EntityDescription, count: Int) throws -> Int64

    /// Inserts new rows at their keys (version 1), with their index entries.
    /// - Throws: `StoreError.constraintConflict` when a row repeats an earlier row's values under a uniqueness
    ///   constraint, or a stored row's (`conflictingObjectIDs` names the new rows, `existingObjectID` the stored
    ///   one).
    func insert(_ rows: StoreBatchRows) throws

    /// Applies a save inside the transaction, with a save's checks (versions, uniqueness constraints).
    /// - Returns: the version each updated row has now; as `StoreWriter.execute(_:)`, a store need only list
    ///   the updates without an `expectedVersion`.
    func save(_ request: StoreSaveRequest) throws -> [ManagedObjectID: Int64]

    /// Writes a persistent history transaction inside the transaction (a store that keeps no history ignores it).
    func appendHistory(_ record: StoreHistoryRecord) throws

    /// Carries out a batch update in the store itself (SQLite: one `UPDATE … SET`), or returns nil to have it done
    /// a row at a time through `execute(_:)` and `save(_:)`.
    /// - Returns: each updated row as it is now, in primary-key order; nil when the store leaves the update to the
    ///   caller.
    /// - Throws: `request.storeFailure(…)` for a computed value its attribute cannot hold, or the store's error;
    ///   either way the transaction is rolled back.
    func update(_ request: StoreBatchUpdate) throws -> [(ManagedObjectID, RowSnapshot)]?
}

extension StoreBatchTransaction {
    /// Ignores the record: the default for a store that keeps no persistent history (a store written before history
    /// existed still conforms).
    /// - Parameter record: the transaction's history, not kept.
    public func appendHistory(_ record: StoreHistoryRecord) throws {}

    /// Leaves the update to the caller, row by row: the default for a store that computes no expressions itself.
    /// - Parameter request: the update, not carried out here.
    /// - Returns: nil.
    public func update(_ request: StoreBatchUpdate) throws -> [(ManagedObjectID, RowSnapshot)]? { nil }
}
