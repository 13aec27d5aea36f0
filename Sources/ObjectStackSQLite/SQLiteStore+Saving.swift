import CSQLite
import Foundation
import ObjectStack

extension SQLiteStore {
    // MARK: - Saving

    /// Applies a save in one transaction: version checks and uniqueness checks first, then the writes; any
    /// failure rolls the whole transaction back.
    /// - Throws: `StoreError` `.versionConflict` or `.constraintConflict` with the same details as the
    ///   in-memory store, or an engine error (`.full`, `.ioFailure`, `.locked`).
    public func execute(_ request: StoreSaveRequest) throws -> [ManagedObjectID: Int64] {
        if request.isEmpty { return [:] }
        try checkWritable()
        return try withConnection { db in
            func save(readingUpdates: Bool) throws -> [ManagedObjectID: Int64] {
                try db.inTransaction {
                    let versions = try checkVersions(request, db, readingUpdates: readingUpdates)
                    try checkUniqueness(request, db)
                    return try apply(request, currentVersions: versions, db)
                }
            }
            do {
                // Updates at a known version are checked by the UPDATE itself (`… AND Z_OPT = ?`): one search of the
                // table per row instead of a SELECT and then the UPDATE, which doubled an update's cost at 100,000 rows.
                return try save(readingUpdates: false)
            } catch is StaleUpdate {
                // A row was at another version (or gone): the save is redone reading every version first, which
                // names each conflict as before.
                return try save(readingUpdates: true)
            }
        }
    }

    /// Applies a save inside a transaction already open on `db` (a batch request's): the same checks and writes
    /// as `execute(_:)`, which the caller's transaction commits or rolls back.
    func save(_ request: StoreSaveRequest, inTransactionOn db: SQLiteConnection) throws -> [ManagedObjectID: Int64] {
        guard !request.isEmpty else { return [:] }
        do {
            let versions = try checkVersions(request, db, readingUpdates: false)
            try checkUniqueness(request, db)
            return try apply(request, currentVersions: versions, db)
        } catch is StaleUpdate {
            // The caller read the versions in this transaction, so only a bug gets here; it rolls back.
            throw StoreError(code: .versionConflict, message: "a row is not at the version read before", url: url)
        }
    }

    /// An update's row was not at the version the save expected; the transaction rolls back and the save is
    /// redone the slow way.
    private struct StaleUpdate: Error {}

    /// A row of the file: its hierarchy's root entity and its primary key.
    struct RowKey: Hashable {
        let root: String
        let key: Int64
        init(_ id: ManagedObjectID) {
            root = id.entity.rootEntity.name
            key = id.key
        }

        // The primary key alone is hashed: hashing the root's name too was most of a lookup in a save's table of
        // 100,000 versions, and rows of two hierarchies sharing a key meet in a bucket only as a pair.
        func hash(into hasher: inout Hasher) { hasher.combine(key) }
    }

    /// The stored version of every updated and deleted row; throws the conflicts, as the in-memory store does.
    /// With `readingUpdates` false, an update at a known version is taken to be at it; `apply` checks it.
    private func checkVersions(_ request: StoreSaveRequest, _ db: SQLiteConnection, readingUpdates: Bool) throws
        -> [RowKey: Int64]
    {
        var current: [RowKey: Int64] = [:]
        current.reserveCapacity(request.updates.count)
        var statements = SaveStatements<String>()
        func version(_ id: ManagedObjectID) throws -> Int64? {
            let table = schema.table(for: id.entity)
            let statement = try statements.statement(table.name, on: db) { table.selectVersionByPrimaryKey }
            defer { statement.reset() }
            statement.bindInt(id.key, at: 1)
            return try statement.step() ? statement.int(0) : nil
        }
        var conflicts: [(ManagedObjectID, Int64)] = []
        for update in request.updates {
            if !readingUpdates, let expected = update.expectedVersion {
                current[RowKey(update.objectID)] = expected
                continue
            }
            let stored = try version(update.objectID)
            if let stored { current[RowKey(update.objectID)] = stored }
            if let expected = update.expectedVersion, stored != expected {
                conflicts.append((update.objectID, expected))
            }
        }
        for delete in request.deletes {
            let stored = try version(delete.objectID)
            if let expected = delete.expectedVersion, stored != expected {
                conflicts.append((delete.objectID, expected))
            }
        }
        for update in request.updates where update.expectedVersion == nil && current[RowKey(update.objectID)] == nil {
            conflicts.append((update.objectID, 0))
        }
        guard conflicts.isEmpty else {
            let rows = try snapshotsInTransaction(conflicts.map(\.0), db)
            var error = StoreError(
                code: .versionConflict,
                message: "\(conflicts.count) object(s) changed in the store since they were read", url: url)
            error.versionConflicts = zip(conflicts, rows).map { conflict, row in
                StoreVersionConflict(objectID: conflict.0, expectedVersion: conflict.1, storedSnapshot: row)
            }
            throw error
        }
        return current
    }

    /// Rows read on the connection already in use (inside the save's transaction).
    private func snapshotsInTransaction(_ ids: [ManagedObjectID], _ db: SQLiteConnection) throws -> [RowSnapshot?] {
        try ids.map { id in
            let table = schema.table(for: id.entity)
            let statement = try db.statement(table.selectByPrimaryKey)
            defer { statement.reset() }
            statement.bindInt(id.key, at: 1)
            return try readRows(statement, root: table.root.name).first?.1
        }
    }

    // MARK: - Writing rows

    private func apply(
        _ request: StoreSaveRequest, currentVersions: [RowKey: Int64], _ db: SQLiteConnection
    ) throws -> [ManagedObjectID: Int64] {
        var versions: [ManagedObjectID: Int64] = [:]
        for delete in request.deletes {
            let id = delete.objectID
            let table = schema.table(for: id.entity)
            let statement = try db.statement("DELETE FROM \(SQLiteSchema.quote(table.name)) WHERE Z_PK = ?")
            statement.bindInt(id.key, at: 1)
            try statement.run()
            for join in schema.joinTables.values {
                let owner = join.owner
                for (side, root) in [
                    (join.sourceColumn, owner.entity.rootEntity.name),
                    (join.destinationColumn, owner.destinationEntity.rootEntity.name),
                ]
                where root == table.root.name {
                    let unlink = try db.statement(
                        "DELETE FROM \(SQLiteSchema.quote(join.name)) WHERE \(SQLiteSchema.quote(side)) = ?")
                    unlink.bindInt(id.key, at: 1)
                    try unlink.run()
                }
            }
        }
        try clearSwappedUniqueValues(request, currentVersions: currentVersions, db)
        versions.reserveCapacity(request.updates.count)
        struct UpdateStatementKey: Hashable {
            let entity: ObjectIdentifier
            let checked: Bool
            /// The stored indices the statement writes; nil for all of them.
            let written: [Int]?
        }
        var updateStatements = SaveStatements<UpdateStatementKey>()
        for update in request.updates {
            let id = update.objectID
            guard let old = currentVersions[RowKey(id)] else { continue }
            let checked = update.expectedVersion != nil
            // As Core Data does, an update at a known version writes only the columns whose values differ from
            // that version's: rewriting every column rewrote the indexed ones too, and an update of two counters
            // cost twice raw SQLite's.
            let written = checked ? update.changedIndices() : nil
            let statement = try updateStatements.statement(
                UpdateStatementKey(entity: ObjectIdentifier(id.entity), checked: checked, written: written), on: db
            ) { updateSQL(for: id.entity, writing: written) + (checked ? " AND Z_OPT = ?" : "") }
            statement.bindInt(old + 1, at: 1)
            let next =
                written.map { bindValues(update.values, at: $0, of: id.entity, statement, from: 2) }
                ?? bindRow(update.values, of: id.entity, statement, from: 2)
            statement.bindInt(id.key, at: next)
            if checked { statement.bindInt(old, at: next + 1) }
            try statement.run()
            if checked, sqlite3_changes(db.handle) != 1 { throw StaleUpdate() }
            // A checked update's new version is its expected one plus one: the caller knows it.
            if update.expectedVersion == nil { versions[id] = old + 1 }
        }
        var insertStatements = SaveStatements<ObjectIdentifier>()
        for insert in request.inserts {
            let id = insert.objectID
            let statement = try insertStatements.statement(ObjectIdentifier(id.entity), on: db) {
                insertSQL(for: id.entity)
            }
            statement.bindInt(id.key, at: 1)
            statement.bindInt(schema.codes[id.entity.name]!, at: 2)
            statement.bindInt(1, at: 3)
            bindRow(insert.values, of: id.entity, statement, from: 4)
            do {
                _ = try statement.step()
                sqlite3_reset(statement.handle)
            } catch {
                statement.reset()
                throw error
            }
        }
        for link in request.deletedLinks {
            guard let join = schema.joinTables[link.relationship] else { continue }
            let statement = try db.statement(
                "DELETE FROM \(SQLiteSchema.quote(join.name)) WHERE \(SQLiteSchema.quote(join.sourceColumn)) = ? "
                    + "AND \(SQLiteSchema.quote(join.destinationColumn)) = ?")
            statement.bindInt(link.source.key, at: 1)
            statement.bindInt(link.destination.key, at: 2)
            try statement.run()
        }
        for link in request.insertedLinks {
            guard let join = schema.joinTables[link.relationship] else { continue }
            let statement = try db.statement(
                "INSERT OR IGNORE INTO \(SQLiteSchema.quote(join.name)) (\(SQLiteSchema.quote(join.sourceColumn)), "
                    + "\(SQLiteSchema.quote(join.destinationColumn))) VALUES (?, ?)")
            statement.bindInt(link.source.key, at: 1)
            statement.bindInt(link.destination.key, at: 2)
            try statement.run()
        }
        for addition in request.orderedAdditions { try place(addition, db) }
        // The history of the save, in its transaction: a kill leaves both or neither.
        if let record = request.history { try appendHistory(record, on: db) }
        return versions
    }

    /// Clears the constrained values that two or more updated rows change under one uniqueness constraint, before
    /// any update writes: rows that trade values (a's key to b, b's to a) would otherwise meet their old values
    /// half-way through the save in the file's unique index (Core Data's `Z_<Entity>_UNIQUE_…`), which SQLite checks
    /// at every statement. The save's checks have already found the end state unique; each update then writes the
    /// column back.
    private func clearSwappedUniqueValues(
        _ request: StoreSaveRequest, currentVersions: [RowKey: Int64], _ db: SQLiteConnection
    ) throws {
        guard request.updates.count > 1 else { return }
        var changing: [String: [(id: ManagedObjectID, columns: [String])]] = [:]
        for update in request.updates {
            let constraints = update.objectID.entity.applicableUniquenessConstraints
            guard !constraints.isEmpty else { continue }
            // An update that keeps every constrained value of the version it read changes none of them: most
            // updates, which need no set of changed indices each.
            let indices = update.objectID.entity.applicableUniquenessStoredIndices
            if indices.allSatisfy({ update.keepsCommittedValues(at: $0) }) { continue }
            guard currentVersions[RowKey(update.objectID)] != nil else { continue }
            let changed = Set(update.changedIndices())
            for (declaring, attributes) in constraints {
                let columns = attributes.filter { changed.contains($0.storedIndex!) }.map { schema.column($0) }
                guard !columns.isEmpty else { continue }
                let key = declaring.name + ":" + attributes.map(\.name).joined(separator: ",")
                changing[key, default: []].append((update.objectID, columns))
            }
        }
        for rows in changing.values where rows.count > 1 {
            for row in rows {
                let table = SQLiteSchema.quote(schema.table(for: row.id.entity).name)
                let sets = row.columns.map { "\($0) = NULL" }.joined(separator: ", ")
                let statement = try db.statement("UPDATE \(table) SET \(sets) WHERE Z_PK = ?")
                statement.bindInt(row.id.key, at: 1)
                try statement.run()
            }
        }
    }

    /// The columns a row of `entity` writes, in `storedIndex` order (a reference's entity code after its key);
    /// only those of the stored indices `written` when given. A derived attribute the file's triggers compute is
    /// left to them.
    private func writtenColumns(of entity: EntityDescription, _ written: [Int]? = nil) -> [String] {
        let excluded = writeRules(of: entity).excluded
        let positions = (written ?? Array(entity.storedProperties.indices)).filter { !excluded.contains($0) }
        return positions.flatMap { position -> [String] in
            switch entity.storedProperties[position] {
            case .attribute(let attribute): return [schema.column(attribute)]
            case .toOne(let relationship):
                return [schema.column(relationship)] + (schema.entityColumn(relationship).map { [$0] } ?? [])
            }
        }
    }

    private func insertSQL(for entity: EntityDescription) -> String {
        let columns = ["Z_PK", "Z_ENT", "Z_OPT"] + writtenColumns(of: entity)
        let table = SQLiteSchema.quote(schema.table(for: entity).name)
        return "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES ("
            + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
    }

    private func updateSQL(for entity: EntityDescription, writing written: [Int]?) -> String {
        let sets = (["Z_OPT"] + writtenColumns(of: entity, written)).map { "\($0) = ?" }.joined(separator: ", ")
        return "UPDATE \(SQLiteSchema.quote(schema.table(for: entity).name)) SET \(sets) WHERE Z_PK = ?"
    }

    /// Binds a row's values from parameter `first` on; returns the next free parameter.
    @discardableResult
    private func bindRow(
        _ values: [StoreValue], of entity: EntityDescription, _ statement: SQLiteStatement, from first: Int32
    )
        -> Int32
    {
        bindValues(values, at: entity.storedProperties.indices, of: entity, statement, from: first)
    }

    /// Binds the values at the stored indices `positions` from parameter `first` on, as `writtenColumns` lists
    /// their columns; returns the next free parameter.
    private func bindValues<Positions: Sequence<Int>>(
        _ values: [StoreValue], at positions: Positions, of entity: EntityDescription, _ statement: SQLiteStatement,
        from first: Int32
    ) -> Int32 {
        let rules = writeRules(of: entity)
        var index = first
        for position in positions {
            if !rules.excluded.isEmpty, rules.excluded.contains(position) { continue }
            let property = entity.storedProperties[position]
            var value = position < values.count ? values[position] : .null
            if !rules.tagged.isEmpty, rules.tagged.contains(position) { value = ExternalBinaryData.stored(value) }
            statement.bind(value, at: index)
            index += 1
            if case .toOne(let relationship) = property, schema.entityColumn(relationship) != nil {
                if case .objectID(let target) = value {
                    statement.bindInt(schema.codes[target.entity.name] ?? 0, at: index)
                } else {
                    sqlite3_bind_null(statement.handle, index)
                }
                index += 1
            }
        }
        return index
    }
}
