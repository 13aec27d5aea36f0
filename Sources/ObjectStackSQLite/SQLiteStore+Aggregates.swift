import CSQLite
import Foundation
import ObjectStack

extension SQLiteStore: StoreAggregating {
    // MARK: - Aggregate fetches

    /// Runs an aggregate fetch as one SQL query:
    /// ```sql
    /// SELECT g.c0, g.c1 FROM (SELECT <key> AS c0, COUNT(<path>) AS c1 FROM table t0 WHERE <predicate>
    ///     GROUP BY <key>) g WHERE <having> ORDER BY <sort keys>, g.c0 LIMIT ? OFFSET ?
    /// ```
    /// Keys and arguments are compiled as the predicate compiler compiles key paths; `COUNT`, `MIN` and `MAX` are
    /// SQLite's (decimals are REAL, as Core Data stores them), sums and averages `os_sum`/`os_avg`, which run
    /// `AggregateAccumulator`; the `HAVING` and the order are the predicate and sort keys of the column entity,
    /// read from the grouped columns.
    /// - Complexity: what SQLite's plan costs: an index serves the predicate, a `MIN`/`MAX` alone, or the grouping.
    public func execute(_ request: StoreAggregateRequest) throws -> [[StoreValue]] {
        let (query, readings) = compile(request)
        return try withConnection { db in
            let statement = try prepare(db, query)
            defer { statement.reset() }
            var rows: [[StoreValue]] = []
            while try statement.step() {
                rows.append(readings.map { $0.value(in: statement, storeIdentifier: identifier) })
            }
            return rows
        }
    }

    /// SQLite explains its plans itself (`EXPLAIN QUERY PLAN`): no `QueryPlan`.
    public func explain(_ request: StoreAggregateRequest) throws -> QueryPlan? { nil }

    /// How one result column is read back from the statement.
    struct ColumnReading {
        enum Kind {
            case value(AttributeType)
            /// A to-one key: the primary key, and the column of its entity code when several entities may be.
            case object(EntityDescription, SQLiteSchema.Table, entityColumn: Int32?)
        }

        let column: Int32
        let kind: Kind

        func value(in statement: SQLiteStatement, storeIdentifier: String) -> StoreValue {
            switch kind {
            case .value(let type):
                return statement.value(column, as: type)
            case .object(let concrete, let table, let entityColumn):
                if statement.isNull(column) { return .null }
                var entity = concrete
                if let entityColumn, let found = table.entitiesByCode[statement.int(entityColumn)] { entity = found }
                return .objectID(
                    ManagedObjectID(entity: entity, storeIdentifier: storeIdentifier, primaryKey: statement.int(column))
                )
            }
        }
    }

    /// The query of an aggregate fetch and how to read its columns.
    func compile(_ request: StoreAggregateRequest) -> (SQLFragment, [ColumnReading]) {
        let table = schema.table(for: request.entity)
        let compiler = SQLitePredicateCompiler(schema: schema, storeIdentifier: identifier)
        let row = SQLitePredicateCompiler.RowRef(alias: "t0", entity: request.entity)
        var conditions: [SQLFragment] = []
        let candidates = request.candidateEntities
        if candidates.isEmpty {
            conditions.append(SQLFragment("0"))
        } else if candidates.count < table.root.selfAndDescendants.filter({ !$0.isAbstract }).count {
            conditions.append(SQLFragment("t0.Z_ENT IN (\(table.codeList(candidates)))"))
        }
        if let predicate = request.predicate {
            conditions.append(compiler.condition(predicate, .init(row: row)))
        }
        var selects: [SQLFragment] = []
        var groupTerms: [SQLFragment] = []
        var readings: [ColumnReading] = []
        var extras: [SQLFragment] = []
        /// The `MIN`/`MAX` columns' expressions.
        var extremes: [SQLFragment] = []
        for (index, column) in request.columns.enumerated() {
            let operand = compiler.value(column.keyPath, from: row)
            let alias = Int32(index)
            switch column {
            case .key(let path):
                selects.append(operand.fragment + " AS c\(index)")
                if request.groupBy.contains(index) {
                    groupTerms.append(operand.fragment)
                }
                if let attribute = path.finalAttribute {
                    readings.append(ColumnReading(column: alias, kind: .value(attribute.type)))
                    continue
                }
                let destination = path.steps.last.flatMap { step -> EntityDescription? in
                    if case .toOne(let relationship) = step { return relationship.destinationEntity }
                    return nil
                }
                guard let destination else {
                    readings.append(ColumnReading(column: alias, kind: .value(.integer64)))
                    continue
                }
                let destinationTable = schema.table(for: destination)
                var entityColumn: Int32?
                if SQLiteSchema.isPolymorphic(destination) {
                    // The entity of the key's object, read beside the grouped columns (after every result column).
                    entityColumn = Int32(request.columns.count + extras.count)
                    extras.append(
                        "(SELECT e.Z_ENT FROM \(SQLiteSchema.quote(destinationTable.name)) e WHERE e.Z_PK = "
                            + operand.fragment + ") AS x\(extras.count)")
                }
                readings.append(
                    ColumnReading(
                        column: alias,
                        kind: .object(
                            SQLiteRowReader.concrete(destination), destinationTable, entityColumn: entityColumn)))
            case .aggregate(let function, let path):
                let argumentType = path.finalAttribute?.type
                let arithmetic = SQLiteFunctions.Arithmetic(argumentType).rawValue
                let select: SQLFragment
                switch function {
                case .count: select = "COUNT(" + operand.fragment + ")"
                case .min: select = "MIN(" + operand.fragment + ")"
                case .max: select = "MAX(" + operand.fragment + ")"
                case .sum: select = "os_sum(" + operand.fragment + ", \(arithmetic))"
                case .avg: select = "os_avg(" + operand.fragment + ", \(arithmetic))"
                }
                selects.append(select + " AS c\(index)")
                if function == .min || function == .max { extremes.append(select) }
                let type = AggregateAccumulator.resultType(of: function, argumentType: argumentType) ?? .integer64
                readings.append(ColumnReading(column: alias, kind: .value(type)))
            }
        }
        var source = SQLFragment(" FROM \(SQLiteSchema.quote(table.name)) t0")
        if !conditions.isEmpty { source = source + " WHERE " + SQLFragment.joined(conditions, separator: " AND ") }
        var inner: SQLFragment
        if groupTerms.isEmpty, extremes.count == request.columns.count {
            // Each extreme in a query of its own: SQLite reads a lone MIN or MAX of an indexed column from one end
            // of the index (together, they scan it).
            inner =
                "SELECT "
                + SQLFragment.joined(
                    extremes.enumerated().map { "(SELECT " + $0.element + source + ") AS c\($0.offset)" },
                    separator: ", ")
        } else {
            inner = "SELECT " + SQLFragment.joined(selects + extras, separator: ", ") + source
            if !groupTerms.isEmpty { inner = inner + " GROUP BY " + SQLFragment.joined(groupTerms, separator: ", ") }
        }

        // The groups as rows of the column entity: the HAVING and the order read them as its attributes.
        for (index, attribute) in request.columnEntity.attributes.enumerated() {
            compiler.columnAliases[ObjectIdentifier(attribute)] = "c\(index)"
        }
        let group = SQLitePredicateCompiler.RowRef(alias: "g", entity: request.columnEntity)
        let outputs = (0..<(request.columns.count + extras.count)).map {
            $0 < request.columns.count ? "g.c\($0)" : "g.x\($0 - request.columns.count)"
        }
        var query = "SELECT " + SQLFragment(outputs.joined(separator: ", ")) + " FROM (" + inner + ") g"
        if let having = request.having {
            query = query + " WHERE " + compiler.condition(having, .init(row: group))
        }
        let order = request.orderingKeys.map { compiler.orderTerm($0, from: group) }
        if !order.isEmpty { query = query + " ORDER BY " + SQLFragment.joined(order, separator: ", ") }
        if request.fetchLimit > 0 || request.fetchOffset > 0 {
            query =
                query
                + SQLFragment(
                    " LIMIT ? OFFSET ?",
                    [
                        .integer(request.fetchLimit > 0 ? Int64(request.fetchLimit) : -1),
                        .integer(Int64(request.fetchOffset)),
                    ])
        }
        return (query, readings)
    }
}
