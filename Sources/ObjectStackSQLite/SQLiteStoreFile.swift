import CSQLite
import Foundation
import ObjectStack

/// What an existing SQLite file holds, read through a connection without writing: its tables and columns, Core
/// Data's bookkeeping tables (`Z_PRIMARYKEY`, `Z_METADATA`, `Z_MODELCACHE`) and what they say.
///
/// The store reads this before it builds its schema, so that a file another writer made (Core Data) keeps its
/// entity codes, table and column names; and before it writes anything, so that a file that is not a store of the
/// model is refused untouched.
struct SQLiteStoreFile {
    /// How the file is laid out.
    enum Layout: Equatable {
        /// No table at all: a new store.
        case empty
        /// Core Data's layout (`Z_PRIMARYKEY`, `Z_METADATA` with `Z_UUID` and `Z_PLIST`), written by Core Data or by
        /// ObjectStack.
        case coreData
        /// ObjectStack's first layout (`Z_METADATA (key, value)`), before it wrote Core Data's.
        case objectStackLegacy
        /// Another application's database.
        case foreign
    }

    /// A row of `Z_PRIMARYKEY`.
    struct EntityRow: Equatable {
        let code: Int64
        let name: String
        let superCode: Int64
        let max: Int64
    }

    let url: URL
    let layout: Layout
    /// Every table's columns (name and declared type, upper-cased), by table name.
    let columns: [String: [(name: String, type: String)]]
    /// The rows of `Z_PRIMARYKEY`, by entity name.
    let entityRows: [String: EntityRow]
    /// The store UUID (`Z_METADATA.Z_UUID`).
    let identifier: String?
    /// The metadata plist's bytes, as stored.
    let plistData: Data?
    /// The model cache, as stored (raw DEFLATE).
    let modelCacheData: Data?
    /// The names of the file's triggers.
    let triggers: [String]

    /// Entity codes from this one on are Core Data's history tables' (16001 CHANGE, 16002 TRANSACTION…), not the
    /// model's.
    static let firstHistoryEntityCode: Int64 = 16_000

    /// Core Data's persistent-history tables.
    static let coreDataHistoryTables: Set<String> = ["ATRANSACTION", "ACHANGE", "ATRANSACTIONSTRING"]

    /// Reads the file's facts through `db`.
    /// - Throws: `StoreError` when the file cannot be read as SQLite, or its bookkeeping tables are damaged.
    init(_ db: SQLiteConnection, url: URL) throws {
        self.url = url
        let tables = try db.strings("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        var columns: [String: [(name: String, type: String)]] = [:]
        for table in tables {
            let literal = "'" + table.replacingOccurrences(of: "'", with: "''") + "'"
            columns[table] = try db.rows("SELECT name, type FROM pragma_table_info(\(literal))").map {
                ($0[0], $0[1].uppercased())
            }
        }
        self.columns = columns
        triggers = try db.strings("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        let metadataColumns = Set((columns["Z_METADATA"] ?? []).map(\.name))
        if tables.isEmpty {
            layout = .empty
        } else if metadataColumns.isSuperset(of: ["Z_VERSION", "Z_UUID", "Z_PLIST"]), columns["Z_PRIMARYKEY"] != nil {
            layout = .coreData
        } else if metadataColumns.isSuperset(of: ["key", "value"]) {
            layout = .objectStackLegacy
        } else {
            layout = .foreign
        }
        guard layout == .coreData else {
            entityRows = [:]
            identifier = nil
            plistData = nil
            modelCacheData = nil
            return
        }
        var rows: [String: EntityRow] = [:]
        let statement = try db.statement("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY")
        defer { statement.reset() }
        while try statement.step() {
            let row = EntityRow(
                code: statement.int(0), name: statement.text(1), superCode: statement.int(2), max: statement.int(3))
            rows[row.name] = row
        }
        entityRows = rows
        let metadata = try db.statement("SELECT Z_UUID, Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1")
        defer { metadata.reset() }
        if try metadata.step() {
            identifier = metadata.isNull(0) ? nil : metadata.text(0)
            plistData = metadata.isNull(1) ? nil : metadata.blob(1)
        } else {
            identifier = nil
            plistData = nil
        }
        if columns["Z_MODELCACHE"] != nil {
            let cache = try db.statement("SELECT Z_CONTENT FROM Z_MODELCACHE LIMIT 1")
            defer { cache.reset() }
            modelCacheData = try cache.step() && !cache.isNull(0) ? cache.blob(0) : nil
        } else {
            modelCacheData = nil
        }
    }

    /// The metadata plist, read.
    /// - Throws: `StoreError` `.corrupt` when the file has none or it does not read.
    func plist() throws -> StoreMetadataPlist {
        guard let plistData else {
            throw StoreError(code: .corrupt, message: "the store has no metadata row (Z_METADATA)", url: url)
        }
        return try StoreMetadataPlist(data: plistData, url: url)
    }

    /// Whether the file holds Core Data's persistent-history tables.
    var hasCoreDataHistory: Bool { !Self.coreDataHistoryTables.isDisjoint(with: columns.keys) }

    /// The model the store's model cache describes; nil when the file has no cache.
    /// - Throws: `StoreError` `.corrupt` when the cache does not inflate or does not decode as a model.
    func cachedModel() throws -> ManagedObjectModel? {
        guard let modelCacheData else { return nil }
        let archive = try RawDeflate.inflate(modelCacheData, url: url)
        do {
            return try ManagedObjectModel(archivedModel: archive)
        } catch {
            throw StoreError(
                code: .corrupt, message: "the store's model cache (Z_MODELCACHE) does not decode: \(error)", url: url)
        }
    }

    /// The store's metadata as ObjectStack reports it: for a store Core Data wrote, the hashes of the model its cache
    /// describes (ObjectStack's and structural ones), and the app's keys in `userInfo`.
    func metadata() throws -> StoreMetadata {
        let plist = try plist()
        guard let identifier else {
            throw StoreError(code: .corrupt, message: "the store's metadata has no UUID (Z_METADATA.Z_UUID)", url: url)
        }
        var userInfo = plist.appEntries
        userInfo["schemaVersion"] = SQLiteStore.schemaVersion
        if let ours = plist.objectStackHashes {
            userInfo["writer"] = plist.isWrittenByObjectStack ? "ObjectStack" : "ObjectStack, with Core Data's hashes"
            return StoreMetadata(
                identifier: identifier, storeType: StoreType.sqlite.name, entityVersionHashes: ours, userInfo: userInfo)
        }
        userInfo["writer"] = "Core Data" + (plist.frameworkVersion.map { " \($0)" } ?? "")
        var metadata = StoreMetadata(
            identifier: identifier, storeType: StoreType.sqlite.name, entityVersionHashes: [:], userInfo: userInfo)
        if let model = try cachedModel() {
            metadata.entityVersionHashes = model.entityVersionHashesByName
            metadata.structuralVersionHashes = Dictionary(
                uniqueKeysWithValues: model.entities.map { ($0.name, $0.structuralVersionHash) })
        } else {
            // Without a cache nothing says which model wrote the store: the entity names say which entities it has
            // (so every model differs, and opening it compares tables and columns instead).
            metadata.structuralVersionHashes = Dictionary(
                uniqueKeysWithValues: entityRows.values.filter { $0.code < Self.firstHistoryEntityCode }.map {
                    ($0.name, "")
                })
        }
        return metadata
    }
}
