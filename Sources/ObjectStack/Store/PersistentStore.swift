import Foundation

/// What a store can read: fetches, rows for faults, and the members of to-many relationships.
///
/// Shaped like Core Data's `NSIncrementalStore`. The coordinator calls these under its lock, one request
/// at a time per coordinator; separate coordinators on one file call their own store instances in parallel,
/// so a store must be safe for that (its own transactions, or a lock on a shared backing).
public protocol StoreReader: AnyObject, Sendable {
    /// The store's UUID, kept in its metadata: the authority part of its objects' URIs.
    var identifier: String { get }
    /// The store's metadata: identifier, type, model version hashes.
    var metadata: StoreMetadata { get }

    /// Runs a fetch and returns rows, IDs, dictionaries or a count, as the request asks.
    /// - Complexity: a full scan of the entity's rows unless the store can use an index.
    func execute(_ request: StoreFetchRequest) throws -> StoreFetchResult

    /// The current rows of the given objects, in order, nil for those that are not in the store.
    func snapshots(for objectIDs: [ManagedObjectID]) throws -> [RowSnapshot?]

    /// The current row of one object, nil if it is not in the store: a fault's or `existingObject(with:)`'s
    /// read, without the batch's arrays.
    func snapshot(for objectID: ManagedObjectID) throws -> RowSnapshot?

    /// For each object, the objects its to-many relationship holds in the store, in stored order.
    ///
    /// Batch-shaped so that prefetching a relationship for many objects is one request (one `IN` query).
    func relatedObjectIDs(of objectIDs: [ManagedObjectID], through relationship: RelationshipDescription) throws
        -> [[ManagedObjectID]]
}

extension StoreReader {
    /// The batch read of one object; stores with a cheaper single-row read override it.
    public func snapshot(for objectID: ManagedObjectID) throws -> RowSnapshot? {
        try snapshots(for: [objectID]).first ?? nil
    }
}

/// What a store can write: new permanent IDs and atomic saves.
public protocol StoreWriter: StoreReader {
    /// Reserves `count` permanent IDs for new objects of `entity`.
    func newObjectIDs(for entity: EntityDescription, count: Int) throws -> [ManagedObjectID]

    /// Applies a save atomically: all of it lands or none of it does.
    ///
    /// The store checks each update's and delete's expected version and each uniqueness constraint inside
    /// the same transaction; a failure throws `StoreError` (`.versionConflict`, `.constraintConflict`) and
    /// writes nothing.
    /// - Returns: the version each updated row has now. A store need only list the updates without an
    ///   `expectedVersion`: a checked update's row is one past it, and an inserted row's version is 1
    ///   (`RowSnapshot`). Hashing every written ID into the table was a cost of each large save.
    func execute(_ request: StoreSaveRequest) throws -> [ManagedObjectID: Int64]
}

/// A store added to a coordinator.
public protocol PersistentStore: StoreWriter {
    /// The store's type.
    var type: StoreType { get }
    /// The store's location (`memory://NAME` for a shared in-memory backing).
    var url: URL { get }
    /// The configuration of the model the store holds, or nil for all entities.
    var configurationName: String? { get }
    /// Called once when the store is removed from its coordinator; later calls throw `.closed`.
    func close()
}

/// What a store keeps about itself.
public struct StoreMetadata: Sendable, Hashable {
    /// The store's UUID.
    public var identifier: String
    /// The store type's name.
    public var storeType: String
    /// Each entity's version hash, as of the model that wrote the store.
    public var entityVersionHashes: [String: String]
    /// Further key-value pairs a store or its user records.
    public var userInfo: [String: String]
    /// For a store another framework wrote (a SQLite store Core Data wrote), each entity's
    /// `EntityDescription.structuralVersionHash` in the model the store describes; nil for a store ObjectStack
    /// wrote. When set, it decides whether a model matches the store (`entitiesDiffering(from:configuration:)`):
    /// Core Data's own hashes (`entityVersionHashes` then holds ObjectStack's hashes of that model) come from a
    /// function that is not documented, and indexes, which Core Data leaves out of them, do not make a store
    /// Core Data would open as it is need a migration here.
    public var structuralVersionHashes: [String: String]?

    /// Creates metadata.
    public init(
        identifier: String, storeType: String, entityVersionHashes: [String: String], userInfo: [String: String] = [:]
    ) {
        self.identifier = identifier
        self.storeType = storeType
        self.entityVersionHashes = entityVersionHashes
        self.userInfo = userInfo
    }

    /// The entities whose version hashes differ between this metadata and `model`, by name (compared on
    /// `structuralVersionHashes` when the store has them).
    public func entitiesDiffering(from model: ManagedObjectModel, configuration: String?) -> [String] {
        let entities = model.entities(forConfiguration: configuration)
        let stored: [String: String]
        let expected: [String: String]
        if let structuralVersionHashes {
            stored = structuralVersionHashes
            expected = Dictionary(uniqueKeysWithValues: entities.map { ($0.name, $0.structuralVersionHash) })
        } else {
            stored = entityVersionHashes
            expected = Dictionary(uniqueKeysWithValues: entities.map { ($0.name, $0.versionHash) })
        }
        let names = Set(expected.keys).union(stored.keys)
        return names.filter { expected[$0] != stored[$0] }.sorted()
    }

    /// Whether the store was written with `model`: no entity's version hash differs.
    public func matches(_ model: ManagedObjectModel, configuration: String?) -> Bool {
        entitiesDiffering(from: model, configuration: configuration).isEmpty
    }
}

/// A kind of store and how to open one.
///
/// `StoreType.inMemory` is built in; `.sqlite` and `.lmdb` come with `import ObjectStackSQLite` and
/// `import ObjectStackLMDB`.
public struct StoreType: Sendable, Hashable, CustomStringConvertible {
    /// The type's name, recorded in store metadata.
    public let name: String
    let open: @Sendable (StoreOpenRequest) throws -> any PersistentStore
    /// What the type can do with its files besides opening them (reading metadata, moving, deleting);
    /// nil for a type whose stores are not files (in-memory), which therefore cannot be migrated.
    public let fileOperations: StoreFileOperations?

    /// Creates a store type that opens stores with `open`.
    /// - Parameters:
    ///   - name: the type's name, recorded in store metadata.
    ///   - fileOperations: how to read, move and delete the type's store files; without them a store of the type
    ///     is never migrated.
    ///   - open: opens a store of the type for a coordinator's request.
    public init(
        name: String, fileOperations: StoreFileOperations? = nil,
        open: @escaping @Sendable (StoreOpenRequest) throws -> any PersistentStore
    ) {
        self.name = name
        self.open = open
        self.fileOperations = fileOperations
    }

    public static func == (lhs: StoreType, rhs: StoreType) -> Bool { lhs.name == rhs.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
    public var description: String { name }
}

/// Everything a store type needs to open a store.
public struct StoreOpenRequest: Sendable {
    /// The model the store holds.
    public let model: ManagedObjectModel
    /// The configuration, or nil for all entities.
    public let configurationName: String?
    /// The store's location.
    public let url: URL
    /// Store options, by name (for example `"synchronous": "FULL"`).
    public let options: [String: String]

    /// The option that gives a new store its identifier instead of a fresh UUID.
    ///
    /// Migration passes the old store's identifier, so object URIs stay valid across a migration; a store that
    /// already exists keeps its own.
    public static let storeIdentifierOption = "storeIdentifier"

    /// Creates an open request.
    public init(model: ManagedObjectModel, configurationName: String?, url: URL, options: [String: String]) {
        self.model = model
        self.configurationName = configurationName
        self.url = url
        self.options = options
    }

    /// The entities this store holds.
    public var entities: [EntityDescription] { model.entities(forConfiguration: configurationName) }
}
