import Foundation

/// The error a persistent store throws: what is wrong with the store and where, with the engine's detail.
///
/// Every store (in-memory, SQLite, LMDB) throws this, so callers handle store failures one way;
/// `nativeCode` and `detail` carry the engine's own result code and message.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    /// What kind of store failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Hashable, Sendable {
            case notAStore, corrupt, incompatibleModel, ioFailure, readOnly, locked, full
            case versionConflict, constraintConflict, invalidOption, unsupported, closed, objectNotFound,
                migrationFailed
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }
        public var description: String { value.rawValue }

        /// The file is not a store of this type.
        public static let notAStore = Code(.notAStore)
        /// The file is damaged: truncated, or its contents do not decode.
        public static let corrupt = Code(.corrupt)
        /// The store was written with a model whose entities differ (migration needed).
        public static let incompatibleModel = Code(.incompatibleModel)
        /// Reading or writing the file failed.
        public static let ioFailure = Code(.ioFailure)
        /// The location cannot be written.
        public static let readOnly = Code(.readOnly)
        /// Another process holds the store.
        public static let locked = Code(.locked)
        /// The disk or the map is full.
        public static let full = Code(.full)
        /// Rows changed since they were read (optimistic locking): see `versionConflicts`.
        public static let versionConflict = Code(.versionConflict)
        /// A uniqueness constraint would be violated: see `constraintConflicts`.
        public static let constraintConflict = Code(.constraintConflict)
        /// A store option that is unknown or has an invalid value.
        public static let invalidOption = Code(.invalidOption)
        /// A request the store cannot carry out.
        public static let unsupported = Code(.unsupported)
        /// The store was removed from its coordinator.
        public static let closed = Code(.closed)
        /// A row that was asked for is not in the store.
        public static let objectNotFound = Code(.objectNotFound)
        /// A migration could not carry the store's data over (a required value is missing, rows clash under a
        /// new uniqueness constraint); the old store is left as it was.
        public static let migrationFailed = Code(.migrationFailed)
    }

    /// What kind of failure this is.
    public let code: Code
    /// What went wrong.
    public let message: String
    /// The store's location.
    public let url: URL?
    /// The engine's result code (SQLite or LMDB), if any.
    public var nativeCode: Int32?
    /// The engine's own message or the SQL being run, if any.
    public var detail: String?
    /// For `.versionConflict`: the rows that changed.
    public var versionConflicts: [StoreVersionConflict] = []
    /// For `.constraintConflict`: the clashing values.
    public var constraintConflicts: [ConstraintConflict] = []

    /// Creates a store error.
    public init(code: Code, message: String, url: URL? = nil, nativeCode: Int32? = nil, detail: String? = nil) {
        self.code = code
        self.message = message
        self.url = url
        self.nativeCode = nativeCode
        self.detail = detail
    }

    /// The error of a save that `conflicts` refuse, each with its place in the save (its row's position in the
    /// request, then the constraint's): the conflicts are listed, and described, in that order.
    public init(constraintConflicts conflicts: [(order: Int64, conflict: ConstraintConflict)], url: URL?) {
        let ordered = conflicts.sorted { $0.order < $1.order }.map(\.conflict)
        self.init(
            code: .constraintConflict, message: ordered.map(\.description).joined(separator: "; "), url: url)
        constraintConflicts = ordered
    }

    public var description: String {
        var text = "\(code): \(message)"
        if let url { text += " [\(url.isFileURL ? url.path : url.absoluteString)]" }
        if let nativeCode { text += " (code \(nativeCode))" }
        if let detail { text += " — \(detail)" }
        return text
    }
}

/// A row that changed in the store since the saving context read it.
public struct StoreVersionConflict: Sendable {
    /// The object whose row changed.
    public let objectID: ManagedObjectID
    /// The version the saving context read.
    public let expectedVersion: Int64
    /// The row as it is in the store now, or nil when it was deleted.
    public let storedSnapshot: RowSnapshot?

    /// Creates a version conflict.
    public init(objectID: ManagedObjectID, expectedVersion: Int64, storedSnapshot: RowSnapshot?) {
        self.objectID = objectID
        self.expectedVersion = expectedVersion
        self.storedSnapshot = storedSnapshot
    }
}

/// Objects whose values clash under a uniqueness constraint.
public struct ConstraintConflict: Sendable, CustomStringConvertible {
    /// The entity that declares the constraint.
    public let entityName: String
    /// The constrained attributes.
    public let attributeNames: [String]
    /// The clashing values, one per attribute.
    public let values: [StoreValue]
    /// The objects being saved that carry those values.
    public let conflictingObjectIDs: [ManagedObjectID]
    /// The object already in the store with those values, if the clash is with the store.
    public let existingObjectID: ManagedObjectID?

    /// Creates a constraint conflict.
    public init(
        entityName: String, attributeNames: [String], values: [StoreValue],
        conflictingObjectIDs: [ManagedObjectID], existingObjectID: ManagedObjectID?
    ) {
        self.entityName = entityName
        self.attributeNames = attributeNames
        self.values = values
        self.conflictingObjectIDs = conflictingObjectIDs
        self.existingObjectID = existingObjectID
    }

    public var description: String {
        let pairs = zip(attributeNames, values).map { "\($0) = \($1)" }.joined(separator: ", ")
        return "\(entityName) uniqueness constraint (\(attributeNames.joined(separator: ", "))) clashes on \(pairs)"
    }
}
