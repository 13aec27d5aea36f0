import Foundation

/// One transaction of persistent history as a store writes it: who wrote it, when, and what each object's change
/// was. Stores keep it encoded (`encoded()`) under a number they hand out inside the write transaction.
///
/// The coordinator builds the record from a save request (or a batch request's writes) and the store writes it in
/// the same transaction as the rows, so history and rows land together or not at all.
public struct StoreHistoryRecord: Sendable {
    /// One object's change.
    public struct Change: Sendable {
        /// The object.
        public var objectID: ManagedObjectID
        /// Insert, update or delete.
        public var changeType: PersistentHistoryChangeType
        /// For an update, the names of the stored properties it changed.
        public var updatedProperties: [String]?
        /// For a delete, the preserved attributes' values by name.
        public var tombstone: [String: StoreValue]?

        /// Creates a change.
        public init(
            objectID: ManagedObjectID, changeType: PersistentHistoryChangeType, updatedProperties: [String]? = nil,
            tombstone: [String: StoreValue]? = nil
        ) {
            self.objectID = objectID
            self.changeType = changeType
            self.updatedProperties = updatedProperties
            self.tombstone = tombstone
        }
    }

    /// When the transaction was written.
    public var timestamp: Date
    /// The saving context's `transactionAuthor`.
    public var author: String?
    /// The saving context's name.
    public var contextName: String?
    /// The writing process's bundle identifier (the executable's name here).
    public var bundleID: String
    /// The writing process's ID.
    public var processID: Int32
    /// The changes, in the order they were written.
    public var changes: [Change]

    /// Creates a record of the current process.
    public init(
        timestamp: Date = Date(), author: String?, contextName: String?, changes: [Change] = [],
        bundleID: String = ProcessInfo.processInfo.processName,
        processID: Int32 = ProcessInfo.processInfo.processIdentifier
    ) {
        self.timestamp = timestamp
        self.author = author
        self.contextName = contextName
        self.changes = changes
        self.bundleID = bundleID
        self.processID = processID
    }

    /// How many changes a transaction may hold: a change's ID is its transaction's number times this plus its
    /// position.
    static let changesPerTransaction: Int64 = 1 << 24
}
