import CSQLite
import Foundation
import ObjectStack

/// Rewrites a store of ObjectStack's first SQLite layout (schema 1: tables `Z_<Root>` with columns named after
/// their properties, join tables `J_…`, a key/value `Z_METADATA`) in Core Data's layout, in place.
///
/// For example:
/// ```swift
/// let rows = try LegacyStoreUpgrade(store: url, model: model).run()
/// ```
/// The rows, links, key reservations and history are copied with SQL into a new file in Core Data's layout, which
/// then replaces the old one (`StoreType.replaceStore`): a kill before the swap leaves the old file as it was, with
/// a leftover `…upgrading` file the next run removes. The store keeps its UUID, so object URIs stay valid.
public struct LegacyStoreUpgrade: Sendable {
    /// The store file.
    public let store: URL
    /// The model that wrote it.
    public let model: ManagedObjectModel

    /// An upgrade of the store at `store`, written with `model`.
    public init(store: URL, model: ManagedObjectModel) {
        self.store = store
        self.model = model
    }

    /// Upgrades the store; returns the rows copied.
    /// - Throws: `StoreError`: `.incompatibleModel` when the file is not in the first layout or was written with
    ///   another model (naming the entities that differ); an engine error when a copy fails (the old file stays).
    public func run() throws -> Int {
        let lock = try StoreFileLock.exclusive(store)
        defer { lock?.release() }
        let legacy = try readLegacyMetadata()
        let differing = StoreMetadata(
            identifier: legacy.identifier, storeType: StoreType.sqlite.name, entityVersionHashes: legacy.hashes
        ).entitiesDiffering(from: model, configuration: nil)
        guard differing.isEmpty else {
            throw StoreError(
                code: .incompatibleModel,
                message: "the store was written with another model; entities that differ: "
                    + differing.joined(separator: ", "), url: store)
        }
        let target = URL(fileURLWithPath: store.path + ".upgrading")
        try? StoreType.sqlite.destroyStore(at: target)
        defer { try? StoreType.sqlite.destroyStore(at: target) }
        let created = try SQLiteStore(
            StoreOpenRequest(
                model: model, configurationName: nil, url: target,
                options: [StoreOpenRequest.storeIdentifierOption: legacy.identifier]))
        let schema = created.schema
        created.close()
        let rows = try copyRows(into: target, schema: schema)
        try StoreType.sqlite.replaceStore(at: store, withStoreAt: target)
        return rows
    }

    // MARK: - Reading the first layout

    private struct LegacyMetadata {
        var identifier: String
        var hashes: [String: String]
        var historyPurgedThrough: Int64?
    }

    private func readLegacyMetadata() throws -> LegacyMetadata {
        let db = try SQLiteConnection(url: store, readOnly: true)
        defer { db.close() }
        sqlite3_busy_timeout(db.handle, SQLiteStore.busyTimeoutMilliseconds)
        let file = try SQLiteStoreFile(db, url: store)
        guard file.layout == .objectStackLegacy else {
            throw StoreError(
                code: .incompatibleModel, message: "the store is not in ObjectStack's first layout: nothing to upgrade",
                url: store)
        }
        var values: [String: String] = [:]
        for row in try db.rows("SELECT key, value FROM Z_METADATA") { values[row[0]] = row[1] }
        guard let identifier = values["uuid"] else {
            throw StoreError(code: .corrupt, message: "the store's metadata has no uuid", url: store)
        }
        var hashes: [String: String] = [:]
        for (key, value) in values where key.hasPrefix("hash:") { hashes[String(key.dropFirst(5))] = value }
        return LegacyMetadata(
            identifier: identifier, hashes: hashes,
            historyPurgedThrough: values["historyPurgedThrough"].flatMap(Int64.init))
    }

    /// The first layout's entity codes: within a hierarchy, by name order, from 1.
    private static func legacyCodes(of root: EntityDescription) -> [String: Int64] {
        let names = root.selfAndDescendants.map(\.name).sorted()
        return Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, Int64($0 + 1)) })
    }

    /// The first layout's column of a property declared by `entity` in `root`'s table.
    private static func legacyColumn(_ name: String, of entity: EntityDescription, root: EntityDescription) -> String {
        (entity === root ? "" : "\(entity.name)_") + name
    }

    /// `CASE expression WHEN old THEN new … END` for the codes of a hierarchy.
    private static func recode(_ expression: String, root: EntityDescription, schema: SQLiteSchema) -> String {
        let cases = legacyCodes(of: root).sorted { $0.value < $1.value }.compactMap { name, old in
            schema.codes[name].map { "WHEN \(old) THEN \($0)" }
        }
        return "CASE \(expression) \(cases.joined(separator: " ")) END"
    }

    // MARK: - Copying

    private func copyRows(into target: URL, schema: SQLiteSchema) throws -> Int {
        let db = try SQLiteConnection(url: target, readOnly: false)
        defer { db.close() }
        sqlite3_busy_timeout(db.handle, SQLiteStore.busyTimeoutMilliseconds)
        let attach = try db.statement("ATTACH DATABASE ? AS old")
        attach.bindText(store.path, at: 1)
        try attach.run()
        defer { try? db.execute("DETACH DATABASE old") }
        var copied = 0
        try db.inTransaction {
            for table in schema.tables.values {
                copied += try copy(table, schema: schema, db)
            }
            for join in schema.joinTables.values {
                let old = SQLiteSchema.quote("J_" + join.owner.storageKey.replacingOccurrences(of: ".", with: "_"))
                try db.execute(
                    "INSERT INTO main.\(SQLiteSchema.quote(join.name)) (\(SQLiteSchema.quote(join.sourceColumn)), "
                        + "\(SQLiteSchema.quote(join.destinationColumn))) SELECT src, dst FROM old.\(old)")
            }
            for row in try db.rows("SELECT root, max FROM old.Z_PRIMARYKEY") {
                guard let table = schema.tables[row[0]], let max = Int64(row[1]) else { continue }
                try db.execute("UPDATE main.Z_PRIMARYKEY SET Z_MAX = \(max) WHERE Z_ENT = \(table.rootCode)")
            }
            let oldTables = try db.strings("SELECT name FROM old.sqlite_master WHERE type = 'table'")
            if oldTables.contains("Z_HISTORY") {
                try SQLiteStore.createHistoryTable(on: db)
                try db.execute("INSERT INTO main.Z_HISTORY SELECT * FROM old.Z_HISTORY")
                let purged = try readLegacyMetadata().historyPurgedThrough ?? 0
                try db.execute("INSERT OR REPLACE INTO main.Z_HISTORYPURGE (Z_PK, Z_THROUGH) VALUES (1, \(purged))")
            }
        }
        _ = try db.scalarText("PRAGMA journal_mode = DELETE")
        return copied
    }

    /// Copies one hierarchy's rows: codes renumbered, columns renamed, decimals from text to REAL, and the entity
    /// codes of references to hierarchies with sub-entities.
    private func copy(_ table: SQLiteSchema.Table, schema: SQLiteSchema, _ db: SQLiteConnection) throws -> Int {
        let root = table.root
        var targets = ["Z_PK", "Z_ENT", "Z_OPT"]
        var sources = ["Z_PK", Self.recode("Z_ENT", root: root, schema: schema), "Z_OPT"]
        for entity in root.selfAndDescendants {
            for attribute in entity.declaredAttributes where attribute.storedIndex != nil {
                let old = SQLiteSchema.quote(Self.legacyColumn(attribute.name, of: entity, root: root))
                targets.append(schema.column(attribute))
                sources.append(attribute.type == .decimal ? "CAST(\(old) AS REAL)" : old)
            }
            for relationship in entity.declaredRelationships where relationship.storedIndex != nil {
                let oldName = Self.legacyColumn(relationship.name, of: entity, root: root)
                let old = SQLiteSchema.quote(oldName)
                targets.append(schema.column(relationship))
                sources.append(old)
                guard let entityColumn = schema.entityColumn(relationship) else { continue }
                let destination = relationship.destinationEntity.rootEntity
                let concrete = relationship.destinationEntity.selfAndDescendants.filter { !$0.isAbstract }
                targets.append(entityColumn)
                if concrete.count > 1 {
                    // The first layout kept the destination's code (its own numbering) beside the key.
                    sources.append(Self.recode(SQLiteSchema.quote(oldName + "_ent"), root: destination, schema: schema))
                } else {
                    let code = concrete.first.flatMap { schema.codes[$0.name] } ?? 0
                    sources.append("CASE WHEN \(old) IS NULL THEN NULL ELSE \(code) END")
                }
            }
        }
        try db.execute(
            "INSERT INTO main.\(SQLiteSchema.quote(table.name)) (\(targets.joined(separator: ", "))) SELECT "
                + "\(sources.joined(separator: ", ")) FROM old.\(SQLiteSchema.quote("Z_" + root.name))")
        return Int(sqlite3_changes(db.handle))
    }
}
