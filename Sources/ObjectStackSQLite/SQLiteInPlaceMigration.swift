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
        let oldSchema = SQLiteSchema(entities: difference.source.entities(forConfiguration: configuration))
        let newSchema = SQLiteSchema(entities: difference.destination.entities(forConfiguration: configuration))
        guard Set(oldSchema.tables.keys) == Set(newSchema.tables.keys),
            Set(oldSchema.joinTables.keys) == Set(newSchema.joinTables.keys)
        else { return false }
        let db = try SQLiteConnection(url: migration.url, readOnly: false)
        defer { db.close() }
        sqlite3_busy_timeout(db.handle, SQLiteStore.busyTimeoutMilliseconds)
        _ = try db.scalarText("PRAGMA journal_mode = WAL")
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
            for statement in newSchema.creationSQL { try db.execute(statement) }
            try db.execute("DELETE FROM Z_METADATA WHERE key LIKE 'hash:%'")
            let insert = try db.statement("INSERT INTO Z_METADATA (key, value) VALUES (?, ?)")
            for entity in difference.destination.entities(forConfiguration: configuration) {
                insert.bind([.text("hash:" + entity.name), .text(entity.versionHash)])
                try insert.run()
            }
            report(.copying, 0.9, rows, done: rows)
            report(.replacing, 0.95, rows, done: rows)
        }
        return true
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
            guard let source = sourceColumn(of: attribute, named: column.name, in: old) else {
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
        let wanted = Dictionary(uniqueKeysWithValues: indexes.map { ($0.name, $0.columns) })
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

    /// The old column an attribute's values come from: its renaming identifier's, else its own name's, declared
    /// by the same entity (a sub-entity's columns carry its name as a prefix, and `covers` allows no entity
    /// change); nil for a new attribute.
    private func sourceColumn(of attribute: AttributeDescription, named column: String, in old: SQLiteSchema.Table)
        -> String?
    {
        let prefix = String(column.dropLast(attribute.name.count))
        let candidate = prefix + (attribute.renamingIdentifier ?? attribute.name)
        return old.columns.contains { column in
            if case .attribute = column.content { return column.name == candidate }
            return false
        } ? candidate : nil
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
