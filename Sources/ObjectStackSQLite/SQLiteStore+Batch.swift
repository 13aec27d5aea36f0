import CSQLite
import Foundation
import ObjectStack

extension SQLiteStore: StoreBatchWriting {
    // MARK: - Batch requests

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction on the store's connection; the store's own reads called
    /// from `body` run in that transaction (`SQLiteBatchScope`).
    public func performBatch<T>(rowsHint: Int, _ body: (any StoreBatchTransaction) throws -> T) throws -> T {
        try checkWritable()
        return try withConnection { db in
            try db.inTransaction {
                try batchScope.run(on: db) { try body(SQLiteBatchTransaction(store: self, db: db)) }
            }
        }
    }

    /// Inserts a batch's rows with one prepared `INSERT` bound straight from their values, after checking their
    /// uniqueness constraints: among the rows by hashing them when the table is empty, otherwise each row against
    /// the table (where the rows inserted before it are) through the constraint's lookup index.
    func insert(_ rows: StoreBatchRows, on db: SQLiteConnection) throws {
        guard rows.count > 0 else { return }
        let entity = rows.entity
        let table = schema.table(for: entity)
        guard let code = table.codes[entity.name] else {
            throw StoreError(code: .unsupported, message: "the store does not hold entity \(entity.name)", url: url)
        }
        // Attribute columns only: a batch row's to-ones are nil, which is what an omitted column holds.
        var columns = ["Z_PK", "Z_ENT", "Z_OPT"]
        var positions: [Int] = []
        for (position, property) in entity.storedProperties.enumerated() {
            if case .attribute(let attribute) = property {
                columns.append(schema.column(attribute))
                positions.append(position)
            }
        }
        let constraints = entity.applicableUniquenessConstraints.map { declaring, attributes in
            (declaring: declaring, attributes: attributes, indices: attributes.map { $0.storedIndex! })
        }
        let checksEachRow = try !constraints.isEmpty && !isEmpty(table, db)
        if !checksEachRow {
            for constraint in constraints {
                guard let (earlier, later) = rows.firstRepeat(at: constraint.indices) else { continue }
                throw conflict(
                    constraint.declaring, constraint.attributes, rows, later,
                    [rows.objectID(ofRow: earlier, storeIdentifier: identifier)], existing: nil)
            }
        }
        let statement = try db.statement(
            "INSERT INTO \(SQLiteSchema.quote(table.name)) (\(columns.joined(separator: ", "))) VALUES ("
                + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")")
        let width = rows.width
        try rows.values.withUnsafeBufferPointer { values in
            for row in 0..<rows.count {
                if checksEachRow {
                    for constraint in constraints {
                        let combination = constraint.indices.map { values[row * width + $0] }
                        guard !combination.contains(where: \.isNull),
                            let owner = try owner(of: combination, constraint.declaring, constraint.attributes, db)
                        else { continue }
                        let earlier = rows.row(ofKey: owner.key)
                        throw conflict(
                            constraint.declaring, constraint.attributes, rows, row,
                            earlier.map { [rows.objectID(ofRow: $0, storeIdentifier: identifier)] } ?? [],
                            existing: earlier == nil ? owner : nil)
                    }
                }
                statement.bindInt(rows.key(ofRow: row), at: 1)
                statement.bindInt(code, at: 2)
                statement.bindInt(1, at: 3)
                var parameter: Int32 = 4
                for position in positions {
                    statement.bind(values[row * width + position], at: parameter)
                    parameter += 1
                }
                do {
                    _ = try statement.step()
                    sqlite3_reset(statement.handle)
                } catch {
                    statement.reset()
                    throw error
                }
            }
        }
    }

    /// The row holding `values` under a uniqueness constraint `declaring` declares, if any.
    func owner(
        of values: [StoreValue], _ declaring: EntityDescription, _ attributes: [AttributeDescription],
        _ db: SQLiteConnection
    ) throws -> ManagedObjectID? {
        let table = schema.table(for: declaring)
        let tests = attributes.map { "\(schema.column($0)) = ?" }.joined(separator: " AND ")
        let statement = try db.statement(
            "SELECT Z_PK, Z_ENT FROM \(SQLiteSchema.quote(table.name)) WHERE \(tests) "
                + "AND Z_ENT IN (\(table.codeList(declaring.selfAndDescendants))) LIMIT 1")
        defer { statement.reset() }
        for (index, value) in values.enumerated() { statement.bind(value, at: Int32(index + 1)) }
        guard try statement.step(), let entity = table.entitiesByCode[statement.int(1)] else { return nil }
        return ManagedObjectID(entity: entity, storeIdentifier: identifier, primaryKey: statement.int(0))
    }

    /// Reserves `count` keys of `entity`'s hierarchy in the transaction open on `db`; returns the first.
    func reserveKeys(for entity: EntityDescription, count: Int, on db: SQLiteConnection) throws -> Int64 {
        let table = schema.table(for: entity)
        let statement = try db.statement("UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + ? WHERE Z_ENT = ? RETURNING Z_MAX")
        defer { statement.reset() }
        statement.bindInt(Int64(count), at: 1)
        statement.bindInt(table.rootCode, at: 2)
        guard try statement.step() else {
            throw StoreError(code: .corrupt, message: "Z_PRIMARYKEY has no row for \(table.root.name)", url: url)
        }
        return statement.int(0) - Int64(count) + 1
    }

    private func isEmpty(_ table: SQLiteSchema.Table, _ db: SQLiteConnection) throws -> Bool {
        let statement = try db.statement("SELECT NOT EXISTS (SELECT 1 FROM \(SQLiteSchema.quote(table.name)))")
        defer { statement.reset() }
        return try statement.step() && statement.int(0) == 1
    }

    private func conflict(
        _ declaring: EntityDescription, _ attributes: [AttributeDescription], _ rows: StoreBatchRows, _ row: Int,
        _ earlier: [ManagedObjectID], existing: ManagedObjectID?
    ) -> StoreError {
        let conflict = ConstraintConflict(
            entityName: declaring.name, attributeNames: attributes.map(\.name),
            values: attributes.map { rows.value(row: row, at: $0.storedIndex!) },
            conflictingObjectIDs: earlier + [rows.objectID(ofRow: row, storeIdentifier: identifier)],
            existingObjectID: existing)
        var error = StoreError(code: .constraintConflict, message: conflict.description, url: url)
        error.constraintConflicts = [conflict]
        return error
    }
}

/// A batch request's transaction on an SQLite store: its connection, inside `BEGIN IMMEDIATE`.
/// - Note: Not thread-safe; valid inside `performBatch`, on its thread.
struct SQLiteBatchTransaction: StoreBatchTransaction {
    let store: SQLiteStore
    let db: SQLiteConnection

    var storeIdentifier: String { store.identifier }

    // The store's reads run on the batch's connection from this thread (`SQLiteBatchScope`).
    func execute(_ request: StoreFetchRequest) throws -> StoreFetchResult { try store.execute(request) }

    func snapshots(for objectIDs: [ManagedObjectID]) throws -> [RowSnapshot?] { try store.snapshots(for: objectIDs) }

    func relatedObjectIDs(of objectIDs: [ManagedObjectID], through relationship: RelationshipDescription) throws
        -> [[ManagedObjectID]]
    {
        try store.relatedObjectIDs(of: objectIDs, through: relationship)
    }

    func owner(ofUniqueValues values: [StoreValue], declaring: EntityDescription, attributes: [AttributeDescription])
        throws -> ManagedObjectID?
    {
        try store.owner(of: values, declaring, attributes, db)
    }

    func reserveKeys(for entity: EntityDescription, count: Int) throws -> Int64 {
        try store.reserveKeys(for: entity, count: count, on: db)
    }

    func insert(_ rows: StoreBatchRows) throws { try store.insert(rows, on: db) }

    func save(_ request: StoreSaveRequest) throws -> [ManagedObjectID: Int64] {
        try store.save(request, inTransactionOn: db)
    }

    func appendHistory(_ record: StoreHistoryRecord) throws { try store.appendHistory(record, on: db) }

    func update(_ request: StoreBatchUpdate) throws -> [(ManagedObjectID, RowSnapshot)]? {
        try store.update(request, on: db)
    }
}
