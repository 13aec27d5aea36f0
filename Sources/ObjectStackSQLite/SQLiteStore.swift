import CSQLite
import Foundation
import ObjectStack

extension StoreType {
    /// A store in an SQLite file (WAL mode), opened with `SQLiteStore`.
    ///
    /// Options: `"durability"`: `"full"` (each commit reaches the disk before the save returns), `"normal"` (the
    /// default: synced at checkpoints, so a power cut may lose the last saves) or `"off"` (never synced), as
    /// `Durability` describes; or, as before, `"synchronous"`: `"NORMAL"` or `"FULL"`.
    public static let sqlite = StoreType(name: "SQLite", fileOperations: SQLiteStore.fileOperations) {
        try SQLiteStore($0)
    }
}

/// A persistent store in an SQLite file in Core Data's own layout: one table per entity hierarchy, predicates
/// compiled to SQL.
///
/// For example:
/// ```swift
/// let store = try coordinator.addPersistentStore(type: .sqlite, at: URL(fileURLWithPath: "pods.sqlite"))
/// ```
/// Each store instance has its own connection (WAL mode, a busy timeout), so separate coordinators on one
/// file read while another writes; a save is one transaction that checks row versions and uniqueness
/// constraints before it writes. It opens a store Core Data wrote (with the model that wrote it) and keeps it a
/// store Core Data opens: entity codes, `Z_MAX`, `Z_OPT`, join tables and order positions are maintained, and the
/// metadata and model cache are left as they are.
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
    /// Why the store refuses writes (a store with Core Data's persistent history); nil when it takes them.
    public let readOnlyReason: String?
    /// How a save writes each entity's row, by the entity's identity: only entities with a rule are listed.
    let writeRulesByEntity: [ObjectIdentifier: SQLiteWriteRules]
    /// A read-only connection that only reads `PRAGMA data_version`, opened on the first look for remote changes.
    let watchConnection = LockedValue<SQLiteConnection?>(nil)

    /// How long a connection waits for another's write lock before a save fails with `.locked`.
    static let busyTimeoutMilliseconds: Int32 = 10_000
    /// The store option that gives a store Core Data's own version hashes of its model (`CoreDataVersionHashes`'s
    /// `optionValue`): a store created or migrated with it records them, with their digest and checksum, so Core
    /// Data opens it as current.
    public static let coreDataVersionHashesOption = "coreDataVersionHashes"

    /// The file layout this code reads and writes, reported as the metadata's `schemaVersion`: 2 is Core Data's
    /// (1 was ObjectStack's own, before).
    static let schemaVersion = "2"

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
        let opened = try SQLiteStoreOpener(request: request).open()
        let schema = opened.schema
        self.schema = schema
        var readers: [String: [Int64: SQLiteRowReader]] = [:]
        for (root, table) in schema.tables {
            for (code, entity) in table.entitiesByCode where !entity.isAbstract {
                readers[root, default: [:]][code] = SQLiteRowReader(
                    entity: entity, table: table, schema: schema, storeURL: request.url)
            }
        }
        self.readers = readers
        var primaryKeyReads: [ObjectIdentifier: SQLitePrimaryKeyRead] = [:]
        for (root, table) in schema.tables {
            let read = SQLitePrimaryKeyRead(sql: table.selectByPrimaryKey, readers: readers[root] ?? [:])
            for entity in table.entitiesByCode.values { primaryKeyReads[ObjectIdentifier(entity)] = read }
        }
        self.primaryKeyReads = primaryKeyReads
        readOnlyReason = opened.readOnlyReason
        var rules: [ObjectIdentifier: SQLiteWriteRules] = [:]
        for entity in request.entities {
            let entityRules = SQLiteWriteRules(entity: entity, triggerDerived: opened.triggerDerived)
            if !entityRules.isPlain { rules[ObjectIdentifier(entity)] = entityRules }
        }
        writeRulesByEntity = rules
        tracksHistory = request.tracksHistory && opened.readOnlyReason == nil
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

    /// The connection's `PRAGMA synchronous` setting: 0 for OFF, 1 for NORMAL, 2 for FULL.
    public func synchronousLevel() throws -> Int {
        try withConnection { Int(try $0.scalarText("PRAGMA synchronous") ?? "") ?? -1 }
    }

    /// How many statements the connection compiled and how many uses the statement cache served.
    public func statementCacheStatistics() throws -> (prepared: Int, reused: Int) {
        try withConnection { ($0.preparedCount, $0.cacheHits) }
    }

    // MARK: - IDs

    /// How a save writes rows of `entity` (an entity of an equal model built separately is found by name).
    @inline(__always)
    func writeRules(of entity: EntityDescription) -> SQLiteWriteRules {
        // Most stores have no rule at all: no lookup per written row then.
        if writeRulesByEntity.isEmpty { return .plain }
        if let rules = writeRulesByEntity[ObjectIdentifier(entity)] { return rules }
        return model.entitiesByName[entity.name].flatMap { writeRulesByEntity[ObjectIdentifier($0)] } ?? .plain
    }

    /// Refuses a write to a store open read-only.
    /// - Throws: `StoreError` `.readOnly` with the reason.
    func checkWritable() throws {
        if let readOnlyReason { throw StoreError(code: .readOnly, message: readOnlyReason, url: url) }
    }

    /// Reserves keys in `Z_PRIMARYKEY`: `Z_MAX` of the hierarchy's root row grows by `count`, as Core Data hands
    /// out `Z_PK`s (unique in the hierarchy's table).
    public func newObjectIDs(for entity: EntityDescription, count: Int) throws -> [ManagedObjectID] {
        guard count > 0 else { return [] }
        try checkWritable()
        let table = schema.table(for: entity)
        let last: Int64 = try withConnection { db in
            try db.inTransaction {
                let statement = try db.statement(
                    "UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + ? WHERE Z_ENT = ? RETURNING Z_MAX")
                defer { statement.reset() }
                statement.bindInt(Int64(count), at: 1)
                statement.bindInt(table.rootCode, at: 2)
                guard try statement.step() else {
                    throw StoreError(
                        code: .corrupt, message: "Z_PRIMARYKEY has no row for \(table.root.name)", url: url)
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
