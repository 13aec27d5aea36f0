import CSQLite
import Foundation
import ObjectStack

extension StoreType {
    /// A store in an SQLite file (WAL mode), opened with `SQLiteStore`.
    ///
    /// Options: `"synchronous"`: `"NORMAL"` (the default) or `"FULL"` (each commit reaches the disk before
    /// the save returns).
    public static let sqlite = StoreType(name: "SQLite", fileOperations: SQLiteStore.fileOperations) {
        try SQLiteStore($0)
    }
}

/// A persistent store in an SQLite file: one table per entity hierarchy, predicates compiled to SQL.
///
/// For example:
/// ```swift
/// let store = try coordinator.addPersistentStore(type: .sqlite, at: URL(fileURLWithPath: "pods.sqlite"))
/// ```
/// Each store instance has its own connection (WAL mode, a busy timeout), so separate coordinators on one
/// file read while another writes; a save is one transaction that checks row versions and uniqueness
/// constraints before it writes.
/// - Note: Thread-safe: the connection is used only under the store's lock.
public final class SQLiteStore: PersistentStore {
    public let url: URL
    public let configurationName: String?
    public let metadata: StoreMetadata
    public var type: StoreType { .sqlite }
    public var identifier: String { metadata.identifier }

    /// The model the store holds.
    public let model: ManagedObjectModel
    let schema: SQLiteSchema
    /// Row readers by root entity name, then by entity code.
    let readers: [String: [Int64: SQLiteRowReader]]
    /// The single-row read of each entity's table, by the entity's identity.
    let primaryKeyReads: [ObjectIdentifier: SQLitePrimaryKeyRead]
    /// The connection; nil once the store is closed.
    private let connection: LockedValue<SQLiteConnection?>
    /// The connection a batch request holds, for the thread that runs it (`SQLiteStore+Batch`).
    let batchScope = SQLiteBatchScope()
    /// Whether saves and batch requests write persistent history (the `persistentHistoryTracking` option).
    public let tracksHistory: Bool
    /// A read-only connection that only reads `PRAGMA data_version`, opened on the first look for remote changes.
    let watchConnection = LockedValue<SQLiteConnection?>(nil)

    /// How long a connection waits for another's write lock before a save fails with `.locked`.
    static let busyTimeoutMilliseconds: Int32 = 10_000
    /// The schema layout this code writes, kept in the metadata table.
    static let schemaVersion = "1"

    /// Opens (or creates) the store described by `request`.
    ///
    /// The file is inspected read-only first; nothing is written unless it is an empty or new file or a store
    /// of this model.
    /// - Throws: `StoreError`: `.notAStore` (not an SQLite file, a directory, another application's database),
    ///   `.corrupt` (truncated or damaged), `.readOnly` (the location cannot be written),
    ///   `.incompatibleModel` (written with another model; the message lists the entities that differ),
    ///   `.invalidOption`.
    public init(_ request: StoreOpenRequest) throws {
        url = request.url
        configurationName = request.configurationName
        model = request.model
        let entities = request.entities
        let schema = SQLiteSchema(entities: entities)
        self.schema = schema
        var readers: [String: [Int64: SQLiteRowReader]] = [:]
        for (root, table) in schema.tables {
            for (code, entity) in table.entitiesByCode where !entity.isAbstract {
                readers[root, default: [:]][code] = SQLiteRowReader(entity: entity, table: table, schema: schema)
            }
        }
        self.readers = readers
        var primaryKeyReads: [ObjectIdentifier: SQLitePrimaryKeyRead] = [:]
        for (root, table) in schema.tables {
            let read = SQLitePrimaryKeyRead(sql: table.selectByPrimaryKey, readers: readers[root] ?? [:])
            for entity in table.entitiesByCode.values { primaryKeyReads[ObjectIdentifier(entity)] = read }
        }
        self.primaryKeyReads = primaryKeyReads
        let opened = try SQLiteStoreOpener(request: request, schema: schema).open()
        tracksHistory = request.tracksHistory
        if tracksHistory {
            do {
                try Self.createHistoryTable(on: opened.connection)
            } catch {
                opened.connection.close()
                throw error
            }
        }
        metadata = opened.metadata
        connection = LockedValue(opened.connection)
    }

    deinit {
        connection.withLock { $0?.close() }
        watchConnection.withLock { $0?.close() }
    }

    /// Closes the connection; later requests throw `.closed`.
    public func close() {
        connection.withLock { connection in
            connection?.close()
            connection = nil
        }
        watchConnection.withLock { watch in
            watch?.close()
            watch = nil
        }
    }

    /// Runs `body` with the connection, under the store's lock.
    func withConnection<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        // Inside a batch request, its reads run on its connection, in its transaction.
        if let batch = batchScope.current { return try body(batch) }
        return try connection.withLock { connection in
            guard let connection else {
                throw StoreError(code: .closed, message: "the store was removed from its coordinator", url: url)
            }
            return try body(connection)
        }
    }

    /// The connection's `PRAGMA synchronous` setting: 1 for NORMAL, 2 for FULL.
    public func synchronousLevel() throws -> Int {
        try withConnection { Int(try $0.scalarText("PRAGMA synchronous") ?? "") ?? -1 }
    }

    /// How many statements the connection compiled and how many uses the statement cache served.
    public func statementCacheStatistics() throws -> (prepared: Int, reused: Int) {
        try withConnection { ($0.preparedCount, $0.cacheHits) }
    }

    // MARK: - IDs

    public func newObjectIDs(for entity: EntityDescription, count: Int) throws -> [ManagedObjectID] {
        guard count > 0 else { return [] }
        let root = entity.rootEntity.name
        let last: Int64 = try withConnection { db in
            try db.inTransaction {
                let statement = try db.statement("UPDATE Z_PRIMARYKEY SET max = max + ? WHERE root = ? RETURNING max")
                defer { statement.reset() }
                statement.bindInt(Int64(count), at: 1)
                statement.bindText(root, at: 2)
                guard try statement.step() else {
                    throw StoreError(code: .corrupt, message: "the key table has no row for \(root)", url: url)
                }
                return statement.int(0)
            }
        }
        let first = last - Int64(count) + 1
        return (0..<Int64(count)).map {
            ManagedObjectID(entity: entity, storeIdentifier: identifier, primaryKey: first + $0)
        }
    }
}
