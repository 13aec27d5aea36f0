import CSQLite
import Foundation
import ObjectStack

extension SQLiteStore: StoreRowStreaming {
    // MARK: - Fetching

    /// Runs a fetch as one SQL query: the predicate, sort keys, limit and offset all in SQL.
    /// - Complexity: what SQLite's plan costs; an indexed column compared with a constant uses its index.
    public func execute(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        try run(request, streaming: nil)
    }

    /// Runs an object fetch as `execute(_:)` does, handing its rows over a chunk at a time as the statement steps.
    public func fetchObjects(
        _ request: StoreFetchRequest, inChunks body: ([(ManagedObjectID, RowSnapshot)], Int?) throws -> Void
    ) throws {
        try withoutActuallyEscaping(body) { body in _ = try run(request, streaming: body) }
    }

    /// Runs a fetch; an object fetch with `streaming` hands its rows to it in chunks and returns no rows.
    private func run(
        _ request: StoreFetchRequest, streaming: (([(ManagedObjectID, RowSnapshot)], Int?) throws -> Void)?
    ) throws -> StoreFetchResult {
        let table = schema.table(for: request.entity)
        let candidates = request.candidateEntities
        let compiler = SQLitePredicateCompiler(schema: schema, storeIdentifier: identifier)
        let row = SQLitePredicateCompiler.RowRef(alias: "t0", entity: request.entity)
        var conditions: [SQLFragment] = []
        let concrete = table.root.selfAndDescendants.filter { !$0.isAbstract }
        if candidates.isEmpty {
            conditions.append(SQLFragment("0"))
        } else if candidates.count < concrete.count {
            conditions.append(SQLFragment("t0.Z_ENT IN (\(table.codeList(candidates)))"))
        }
        if let predicate = request.predicate {
            conditions.append(compiler.condition(predicate, .init(row: row)))
        }
        var body = SQLFragment(" FROM \(SQLiteSchema.quote(table.name)) t0")
        if !conditions.isEmpty { body = body + " WHERE " + SQLFragment.joined(conditions, separator: " AND ") }
        var tail = body
        let order = request.sortKeys.map { compiler.orderTerm($0, from: row) } + [SQLFragment("t0.Z_PK")]
        tail = tail + " ORDER BY " + SQLFragment.joined(order, separator: ", ")
        if request.fetchLimit > 0 || request.fetchOffset > 0 {
            tail =
                tail
                + SQLFragment(
                    " LIMIT ? OFFSET ?",
                    [
                        .integer(request.fetchLimit > 0 ? Int64(request.fetchLimit) : -1),
                        .integer(Int64(request.fetchOffset)),
                    ])
        }
        return try withConnection { db in
            switch request.resultType {
            case .count:
                let query =
                    request.fetchLimit > 0 || request.fetchOffset > 0
                    ? "SELECT COUNT(*) FROM (SELECT 1" + tail + ")" : "SELECT COUNT(*)" + body
                let statement = try prepare(db, query)
                defer { statement.reset() }
                return .count(try statement.step() ? Int(statement.int(0)) : 0)
            case .objectIDs:
                let statement = try prepare(db, "SELECT t0.Z_PK, t0.Z_ENT" + tail)
                defer { statement.reset() }
                var ids: [ManagedObjectID] = []
                while try statement.step() {
                    guard let entity = table.entitiesByCode[statement.int(1)] else { continue }
                    ids.append(
                        ManagedObjectID(entity: entity, storeIdentifier: identifier, primaryKey: statement.int(0)))
                }
                return .objectIDs(ids)
            case .objects:
                let statement = try prepare(db, "SELECT " + rowColumns(table, alias: "t0") + tail)
                defer { statement.reset() }
                if let streaming {
                    // A whole entity's rows, without a filter or a limit: counting them first is cheap (SQLite
                    // counts a b-tree's entries without reading its rows) and lets the receiver make room for
                    // them all at once. A limited fetch (a first screen) is not worth a count of the table.
                    var expected: Int?
                    if request.predicate == nil, request.fetchLimit == 0 {
                        let count = try prepare(db, "SELECT COUNT(*)" + body)
                        defer { count.reset() }
                        if try count.step() { expected = max(Int(count.int(0)) - request.fetchOffset, 0) }
                    }
                    try packRows(statement, root: table.root.name, expected: expected, inChunks: streaming)
                    return .objects([])
                }
                var rows: [(ManagedObjectID, RowSnapshot)] = []
                try packRows(statement, root: table.root.name) { chunk, _ in rows += chunk }
                return .objects(rows)
            case .values(let paths, let distinct):
                return .values(try values(paths, distinct: distinct, compiler: compiler, row: row, tail: tail, db: db))
            }
        }
    }

    /// `Z_PK, Z_ENT, Z_OPT` and every column of a table, as `SQLiteRowReader` expects them.
    func rowColumns(_ table: SQLiteSchema.Table, alias: String) -> String {
        alias == "t0"
            ? table.rowColumns
            : (["Z_PK", "Z_ENT", "Z_OPT"] + table.columns.map { SQLiteSchema.quote($0.name) })
                .map { "\(alias).\($0)" }.joined(separator: ", ")
    }

    func prepare(_ db: SQLiteConnection, _ query: SQLFragment) throws -> SQLiteStatement {
        let statement = try db.statement(query.sql)
        statement.bind(query.bindings)
        return statement
    }

    /// Reads every row of a statement that selects `rowColumns`.
    func readRows(_ statement: SQLiteStatement, root: String) throws -> [(ManagedObjectID, RowSnapshot)] {
        var rows: [(ManagedObjectID, RowSnapshot)] = []
        let storeIdentifier = identifier
        try forEachRow(statement, root: root) { id, reader in
            rows.append((id, reader.snapshot(statement, storeIdentifier: storeIdentifier)))
        }
        return rows
    }

    /// Reads the rows of a statement that selects `rowColumns`, packed (`RowPacker`), and hands them to `body` a
    /// chunk at a time: the rows of a chunk share one buffer. With `expected` rows in all, `body` is told how many
    /// are still to come (an estimate: a row written meanwhile may differ).
    func packRows(
        _ statement: SQLiteStatement, root: String, expected: Int? = nil,
        inChunks body: ([(ManagedObjectID, RowSnapshot)], Int?) throws -> Void
    ) throws {
        let storeIdentifier = identifier
        try withoutActuallyEscaping(body) { body in
            let collector = RowChunkCollector(chunkSize: Self.rowChunkSize, expected: expected, body: body)
            try forEachRow(statement, root: root) { id, reader in
                reader.pack(statement, into: collector.packer, storeIdentifier: storeIdentifier)
                try collector.rowPacked(id)
            }
            try collector.finish()
        }
    }

    /// Steps a statement that selects `rowColumns` and hands each row's ID, and the reader of its entity, to
    /// `body`, which reads the row from the statement.
    @inline(__always)
    private func forEachRow(
        _ statement: SQLiteStatement, root: String, _ body: (ManagedObjectID, SQLiteRowReader) throws -> Void
    ) throws {
        let readers = self.readers[root] ?? [:]
        let storeIdentifier = identifier
        var lastCode: Int64 = -1
        var reader: SQLiteRowReader?
        while try statement.step() {
            let code = statement.int(1)
            if code != lastCode {
                reader = readers[code]
                lastCode = code
            }
            guard let reader else { continue }
            let id = ManagedObjectID(
                entity: reader.entity, storeIdentifier: storeIdentifier, primaryKey: statement.int(0))
            try body(id, reader)
        }
    }

    /// Dictionary results: only the asked key paths are selected; `distinct` applies to the fetched window.
    private func values(
        _ paths: [BoundKeyPath], distinct: Bool, compiler: SQLitePredicateCompiler, row: SQLitePredicateCompiler.RowRef,
        tail: SQLFragment, db: SQLiteConnection
    ) throws -> [[StoreValue]] {
        enum Reading {
            case attribute(Int32, AttributeType)
            case object(Int32, entityColumn: Int32?, EntityDescription, SQLiteSchema.Table)
            case null
        }
        var selects: [SQLFragment] = []
        var readings: [Reading] = []
        for path in paths {
            let operand = compiler.value(path, from: row)
            let column = Int32(selects.count)
            selects.append(operand.fragment)
            if let attribute = path.finalAttribute {
                readings.append(.attribute(column, attribute.type))
                continue
            }
            guard case .object = operand.kind else {
                readings.append(.null)
                continue
            }
            let entity: EntityDescription
            switch path.steps.last {
            case .toOne(let r)?, .toMany(let r)?: entity = r.destinationEntity
            default: entity = path.variable == nil ? row.entity : row.entity
            }
            let table = schema.table(for: entity)
            var entityColumn: Int32?
            if SQLiteSchema.isPolymorphic(entity) {
                entityColumn = Int32(selects.count)
                selects.append(
                    "(SELECT e.Z_ENT FROM \(SQLiteSchema.quote(table.name)) e WHERE e.Z_PK = " + operand.fragment + ")")
            }
            readings.append(.object(column, entityColumn: entityColumn, SQLiteRowReader.concrete(entity), table))
        }
        let statement = try prepare(db, "SELECT " + SQLFragment.joined(selects, separator: ", ") + tail)
        defer { statement.reset() }
        var rows: [[StoreValue]] = []
        var seen: Set<[StoreValue]> = []
        while try statement.step() {
            let values: [StoreValue] = readings.map { reading in
                switch reading {
                case .null: return .null
                case .attribute(let column, let type): return statement.value(column, as: type)
                case .object(let column, let entityColumn, let concrete, let table):
                    if statement.isNull(column) { return .null }
                    var entity = concrete
                    if let entityColumn, let found = table.entitiesByCode[statement.int(entityColumn)] {
                        entity = found
                    }
                    return .objectID(
                        ManagedObjectID(entity: entity, storeIdentifier: identifier, primaryKey: statement.int(column)))
                }
            }
            if distinct, !seen.insert(values).inserted { continue }
            rows.append(values)
        }
        return rows
    }

    // MARK: - Faults and relationships

    /// The rows of the given objects: one query per entity hierarchy (`Z_PK IN` a JSON array of keys).
    public func snapshots(for objectIDs: [ManagedObjectID]) throws -> [RowSnapshot?] {
        if objectIDs.count == 1 { return [try snapshot(for: objectIDs[0])] }
        var found: [String: [Int64: (ManagedObjectID, RowSnapshot)]] = [:]
        var keysByRoot: [String: [Int64]] = [:]
        for id in objectIDs where !id.isTemporaryID {
            keysByRoot[id.entity.rootEntity.name, default: []].append(id.key)
        }
        try withConnection { db in
            for (root, keys) in keysByRoot {
                guard let table = schema.tables[root] else { continue }
                let select = "SELECT " + rowColumns(table, alias: "t0") + " FROM \(SQLiteSchema.quote(table.name)) t0"
                let statement: SQLiteStatement
                if keys.count == 1 {
                    statement = try db.statement(select + " WHERE t0.Z_PK = ?")
                    statement.bindInt(keys[0], at: 1)
                } else {
                    statement = try db.statement(select + " WHERE t0.Z_PK IN (SELECT value FROM json_each(?))")
                    statement.bindText(Self.jsonArray(keys), at: 1)
                }
                defer { statement.reset() }
                var rows: [Int64: (ManagedObjectID, RowSnapshot)] = [:]
                for row in try readRows(statement, root: root) { rows[row.0.key] = row }
                found[root] = rows
            }
        }
        return objectIDs.map { id in
            guard !id.isTemporaryID, let row = found[id.entity.rootEntity.name]?[id.key],
                row.0.entity.name == id.entity.name
            else { return nil }
            return row.1
        }
    }

    /// One object's row: the lookup by ID, with its query built once per table and no tables of results.
    public func snapshot(for id: ManagedObjectID) throws -> RowSnapshot? {
        guard !id.isTemporaryID else { return nil }
        // An entity of an equal model built separately is not known by identity: its namesake in the store's
        // model is.
        guard
            let read = primaryKeyReads[ObjectIdentifier(id.entity)]
                ?? model.entitiesByName[id.entity.name].flatMap({ primaryKeyReads[ObjectIdentifier($0)] })
        else { return nil }
        return try withConnection { db in
            let statement = try db.statement(read)
            defer { statement.reset() }
            statement.bindInt(id.key, at: 1)
            guard try statement.step(), let reader = read.readers[statement.int(1)],
                reader.entity === id.entity || reader.entity.name == id.entity.name
            else { return nil }
            return reader.snapshot(statement, storeIdentifier: identifier)
        }
    }

    static func jsonArray(_ keys: [Int64]) -> String {
        "[" + keys.map(String.init).joined(separator: ",") + "]"
    }

    /// The members of a to-many for many objects at once: one query over the inverse's key column or the
    /// join table; members in primary-key order (join tables: link order), an ordered relationship's by position.
    public func relatedObjectIDs(of objectIDs: [ManagedObjectID], through relationship: RelationshipDescription) throws
        -> [[ManagedObjectID]]
    {
        let keys = objectIDs.filter { !$0.isTemporaryID }.map(\.key)
        guard !keys.isEmpty else { return objectIDs.map { _ in [] } }
        let destination = schema.table(for: relationship.destinationEntity)
        let sql: String
        switch relationship.storage {
        case .foreignKey:
            return objectIDs.map { _ in [] }
        case .inverseForeignKey:
            let column = schema.column(relationship.inverse!)
            // An ordered relationship's members by their positions (Core Data's `Z_FOK_…`), then by key.
            let order = schema.orderColumn(of: relationship).map { "d.\($0.column), " } ?? ""
            sql =
                "SELECT d.\(column), d.Z_PK, d.Z_ENT FROM \(SQLiteSchema.quote(destination.name)) d "
                + "WHERE d.\(column) IN (SELECT value FROM json_each(?)) ORDER BY \(order)d.Z_PK"
        case .joinTable:
            let join = schema.joinTables[relationship.joinTableOwner.storageKey]!
            let (mine, theirs) = join.columns(for: relationship)
            let order = join.orderColumn(for: relationship).map { "j.\(SQLiteSchema.quote($0)), " } ?? ""
            sql =
                "SELECT j.\(SQLiteSchema.quote(mine)), d.Z_PK, d.Z_ENT FROM \(SQLiteSchema.quote(join.name)) j "
                + "JOIN \(SQLiteSchema.quote(destination.name)) d ON d.Z_PK = j.\(SQLiteSchema.quote(theirs)) "
                + "WHERE j.\(SQLiteSchema.quote(mine)) IN (SELECT value FROM json_each(?)) ORDER BY \(order)j.rowid"
        }
        var members: [Int64: [ManagedObjectID]] = [:]
        try withConnection { db in
            let statement = try db.statement(sql)
            defer { statement.reset() }
            statement.bindText(Self.jsonArray(keys), at: 1)
            while try statement.step() {
                guard let entity = destination.entitiesByCode[statement.int(2)] else { continue }
                members[statement.int(0), default: []].append(
                    ManagedObjectID(entity: entity, storeIdentifier: identifier, primaryKey: statement.int(1)))
            }
        }
        return objectIDs.map { $0.isTemporaryID ? [] : members[$0.key] ?? [] }
    }
}
