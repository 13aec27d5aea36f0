import CSQLite
import Foundation
import ObjectStack

/// A lightweight migration made with SQL inside the store's file, in one transaction, as Core Data alters a
/// SQLite store: attributes added (`ALTER TABLE … ADD COLUMN`, the default as the column's default, so no row
/// is rewritten), renamed (`RENAME COLUMN`) or removed (`DROP COLUMN`), indexes added or removed, an attribute
/// made optional. Any other change (entities, relationships, uniqueness constraints, optional made required)
/// is left to the copying migration.
///
/// Atomic as any SQLite transaction: a process killed before the commit leaves the old store, rolled back from
/// its WAL at the next open; an error rolls it back. It reports `copying` progress inside the transaction and
/// `replacing` just before the commit, as a copying migration does before its swap.
struct SQLiteInPlaceMigration {
    let migration: InPlaceMigration

    /// Whether every change is one this migration makes.
    static func covers(_ difference: ModelDifference) -> Bool {
        difference.isLightweightMigratable
            && difference.changes.allSatisfy { change in
                switch change {
                case .attributeAdded, .attributeRemoved, .attributeRenamed, .indexAdded, .indexRemoved,
                    .versionHashModifierChanged:
                    return true
                case .attributeOptionalityChanged(_, _, let isOptional):
                    return isOptional
                default:
                    return false
                }
            }
    }

    /// Makes the change; false (and nothing written) when it is not one this migration covers.
    func run() throws -> Bool {
        let difference = migration.difference
        guard Self.covers(difference) else { return false }
        let configuration = migration.configurationName
        let db = try SQLiteConnection(url: migration.url, readOnly: false)
        defer { db.close() }
        sqlite3_busy_timeout(db.handle, SQLiteStore.busyTimeoutMilliseconds)
        _ = try db.scalarText("PRAGMA journal_mode = WAL")
        let file = try SQLiteStoreFile(db, url: migration.url)
        guard file.layout == .coreData, !file.hasCoreDataHistory else { return false }
        let destinationEntities = difference.destination.entities(forConfiguration: configuration)
        let oldSchema = SQLiteSchema(entities: difference.source.entities(forConfiguration: configuration), file: file)
        let newSchema = SQLiteSchema(entities: destinationEntities, file: file)
        guard Set(oldSchema.tables.keys) == Set(newSchema.tables.keys),
            Set(oldSchema.joinTables.keys) == Set(newSchema.joinTables.keys)
        else { return false }
        try db.inTransaction {
            var rows = 0
            for table in newSchema.tables.values {
                rows += Int(try db.scalarText("SELECT COUNT(*) FROM \(SQLiteSchema.quote(table.name))") ?? "0") ?? 0
            }
            report(.copying, 0.1, rows, done: 0)
            for table in newSchema.tables.values.sorted(by: { $0.name < $1.name }) {
                try alter(table, old: oldSchema.tables[table.root.name]!, indexes: newSchema.indexes(of: table), db)
            }
            report(.copying, 0.5, rows, done: rows / 2)
            // The new model's indexes that are missing (CREATE … IF NOT EXISTS leaves the others alone).
            for table in newSchema.tables.values {
                for index in newSchema.indexes(of: table) { try db.execute(index.creationSQL) }
            }
            try writeMetadata(for: destinationEntities, file: file, db)
            report(.copying, 0.9, rows, done: rows)
            report(.replacing, 0.95, rows, done: rows)
        }
        return true
    }

    /// The store's metadata for the new model: ObjectStack's hashes of it, and Core Data's when the migration was
    /// given them (`SQLiteStore.coreDataVersionHashesOption`); the app's keys kept. The model cache, which describes
    /// the old model, is removed.
    private func writeMetadata(for entities: [EntityDescription], file: SQLiteStoreFile, _ db: SQLiteConnection) throws
    {
        var coreDataHashes: CoreDataVersionHashes?
        if let text = migration.options[SQLiteStore.coreDataVersionHashesOption] {
            guard let hashes = CoreDataVersionHashes(optionValue: text),
                Set(hashes.hashes.keys) == Set(entities.map(\.name))
            else {
                throw StoreError(
                    code: .invalidOption, message: "Core Data's hashes given are not for the new model's entities",
                    url: migration.url)
            }
            coreDataHashes = hashes
        }
        let kept = (try? file.plist().values) ?? [:]
        let data = StoreMetadataPlist.data(
            for: entities, versionIdentifiers: [], coreDataHashes: coreDataHashes, keeping: kept)
        let statement = try db.statement("UPDATE Z_METADATA SET Z_PLIST = ? WHERE Z_VERSION = 1")
        statement.bindBlob(data, at: 1)
        try statement.run()
        if file.columns["Z_MODELCACHE"] != nil { try db.execute("DELETE FROM Z_MODELCACHE") }
    }

    /// Progress in the copying migration's terms: no row is copied, but every row is carried over.
    private func report(_ phase: MigrationProgress.Phase, _ fraction: Double, _ rows: Int, done: Int) {
        migration.progress?(
            MigrationProgress(phase: phase, fractionCompleted: fraction, completedRows: done, totalRows: rows))
    }

    /// Renames, drops and adds the columns of one table, dropping first the indexes that no longer fit.
    private func alter(
        _ table: SQLiteSchema.Table, old: SQLiteSchema.Table, indexes: [SQLiteSchema.Index], _ db: SQLiteConnection
    ) throws {
        let name = SQLiteSchema.quote(table.name)
        var oldColumns = Dictionary(uniqueKeysWithValues: old.columns.map { ($0.name, $0) })
        var added: [SQLiteSchema.Column] = []
        for column in table.columns {
            guard case .attribute(let attribute) = column.content else {
                // Relationships do not change here (`covers`): their columns keep their names.
                oldColumns[column.name] = nil
                continue
            }
            guard let source = sourceColumn(of: attribute, in: table, old: old) else {
                added.append(column)
                continue
            }
            oldColumns[source] = nil
            if source != column.name {
                try db.execute(
                    "ALTER TABLE \(name) RENAME COLUMN \(SQLiteSchema.quote(source)) TO \(SQLiteSchema.quote(column.name))"
                )
            }
        }
        // Indexes over a column that goes, or whose columns are not the new model's, are dropped; the new
        // model's creation statements then make any that are missing.
        let wanted = Dictionary(indexes.map { ($0.name, $0.columns) }, uniquingKeysWith: { first, _ in first })
        for index in try db.strings(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name = '\(table.name.replacingOccurrences(of: "'", with: "''"))'"
        ) {
            let columns = try db.strings(
                "SELECT name FROM pragma_index_info('\(index.replacingOccurrences(of: "'", with: "''"))') ORDER BY seqno"
            )
            if wanted[index] != columns { try db.execute("DROP INDEX \(SQLiteSchema.quote(index))") }
        }
        for column in oldColumns.keys.sorted() {
            try db.execute("ALTER TABLE \(name) DROP COLUMN \(SQLiteSchema.quote(column))")
        }
        for column in added {
            guard case .attribute(let attribute) = column.content else { continue }
            let literal = Self.literal(attribute.defaultValue)
            try db.execute(
                "ALTER TABLE \(name) ADD COLUMN \(SQLiteSchema.quote(column.name)) \(column.sqlType)"
                    + (literal.map { " DEFAULT \($0)" } ?? ""))
            if literal == nil, !attribute.defaultValue.isNull {
                // A default SQL cannot spell as a constant (a decimal, a UUID, data): written into the rows.
                let update = try db.statement("UPDATE \(name) SET \(SQLiteSchema.quote(column.name)) = ?")
                update.bind(attribute.defaultValue, at: 1)
                try update.run()
            }
        }
    }

    /// The old column an attribute's values come from: the column of the old model's attribute its renaming
    /// identifier names, else of its namesake, declared by the entity of the same name (`covers` allows no entity
    /// change); nil for a new attribute.
    private func sourceColumn(
        of attribute: AttributeDescription, in new: SQLiteSchema.Table, old: SQLiteSchema.Table
    ) -> String? {
        guard
            let declaring = new.root.selfAndDescendants.first(where: {
                $0.declaredAttributes.contains { $0 === attribute }
            }),
            let previousEntity = old.root.selfAndDescendants.first(where: { $0.name == declaring.name }),
            let previous = previousEntity.declaredAttributes.first(where: {
                $0.name == (attribute.renamingIdentifier ?? attribute.name)
            })
        else { return nil }
        for column in old.columns {
            if case .attribute(let candidate) = column.content, candidate === previous { return column.name }
        }
        return nil
    }

    /// A value as an SQL constant, as the store binds it; nil when SQL has no plain constant for it.
    static func literal(_ value: StoreValue) -> String? {
        switch value {
        case .null: return nil
        case .integer(let v): return String(v)
        case .boolean(let v): return v ? "1" : "0"
        case .double(let v) where v.isFinite: return String(format: "%.17g", v)
        case .date(let v): return String(format: "%.17g", v.timeIntervalSinceReferenceDate)
        case .string(let v): return "'" + v.replacingOccurrences(of: "'", with: "''") + "'"
        default: return nil
        }
    }
}
