import Foundation
import ObjectStack

extension SQLiteStore {
    // MARK: - Batch updates

    /// Carries out a batch update as one `UPDATE … SET column = os_store(<expression>, …), Z_OPT = Z_OPT + 1
    /// WHERE Z_PK IN (<the fetch's rows>) RETURNING Z_PK, Z_ENT` in the transaction open on `db`, then reads the rows
    /// it wrote. Each value is computed from the row as it was before the statement (SQL's `SET` reads old values,
    /// as the row-by-row path does).
    ///
    /// Leaves the update to the row-by-row path (nil) when an assigned attribute is under a uniqueness constraint
    /// (the save path checks constraints and names the rows that clash) or an expression has no single SQL value.
    /// - Returns: the updated rows in primary-key order, or nil.
    /// - Throws: `request.storeFailure(…)` for a computed value its attribute cannot hold, or `StoreError`; the
    ///   caller's transaction is then rolled back.
    func update(_ request: StoreBatchUpdate, on db: SQLiteConnection) throws -> [(ManagedObjectID, RowSnapshot)]? {
        let fetch = request.fetch
        let candidates = fetch.candidateEntities
        let names = Set(request.assignments.map(\.attribute.name))
        let constrained = candidates.contains { entity in
            entity.applicableUniquenessConstraints.contains { _, attributes in
                attributes.contains { names.contains($0.name) }
            }
        }
        guard !constrained else { return nil }
        let table = schema.table(for: fetch.entity)
        let name = SQLiteSchema.quote(table.name)
        let predicates = SQLitePredicateCompiler(schema: schema, storeIdentifier: identifier)
        let compiler = SQLiteExpressionCompiler(
            predicates: predicates, row: .init(alias: name, entity: fetch.entity), now: request.now)
        var sets: [SQLFragment] = []
        for (position, assignment) in request.assignments.enumerated() {
            guard let value = compiler.compile(assignment.value) else { return nil }
            let attribute = assignment.attribute
            sets.append(
                SQLFragment("\(schema.column(attribute)) = os_store(") + value.fragment
                    + ", \(SQLiteFunctions.code(of: value.kind)), '\(attribute.type.rawValue)', "
                    + "\(attribute.isOptional ? 1 : 0), \(position), \(name).Z_PK, \(name).Z_ENT)")
        }
        sets.append(SQLFragment("Z_OPT = Z_OPT + 1"))
        let statement = try prepare(
            db,
            "UPDATE \(name) SET " + SQLFragment.joined(sets, separator: ", ") + " WHERE Z_PK IN (SELECT t0.Z_PK"
                + matches(fetch, table, predicates) + ") RETURNING Z_PK, Z_ENT")
        defer { statement.reset() }
        var ids: [ManagedObjectID] = []
        do {
            while try statement.step() {
                guard let entity = table.entitiesByCode[statement.int(1)] else { continue }
                ids.append(ManagedObjectID(entity: entity, storeIdentifier: identifier, primaryKey: statement.int(0)))
            }
        } catch {
            guard let failure = SQLiteFunctions.takeStoreFailure(),
                let entity = table.entitiesByCode[failure.entityCode]
            else { throw error }
            throw request.storeFailure(
                attribute: request.assignments[failure.assignment].attribute,
                objectID: ManagedObjectID(entity: entity, storeIdentifier: identifier, primaryKey: failure.primaryKey),
                value: failure.value)
        }
        ids.sort { $0.key < $1.key }
        return zip(ids, try snapshots(for: ids)).compactMap { id, row in row.map { (id, $0) } }
    }

    /// ` FROM table t0 WHERE …`: the rows a fetch matches (its entities and predicate), as a fetch selects them.
    private func matches(
        _ fetch: StoreFetchRequest, _ table: SQLiteSchema.Table, _ predicates: SQLitePredicateCompiler
    ) -> SQLFragment {
        let candidates = fetch.candidateEntities
        var conditions: [SQLFragment] = []
        if candidates.isEmpty {
            conditions.append(SQLFragment("0"))
        } else if candidates.count < table.root.selfAndDescendants.filter({ !$0.isAbstract }).count {
            conditions.append(SQLFragment("t0.Z_ENT IN (\(table.codeList(candidates)))"))
        }
        if let predicate = fetch.predicate {
            conditions.append(
                predicates.condition(predicate, .init(row: .init(alias: "t0", entity: fetch.entity))))
        }
        let from = SQLFragment(" FROM \(SQLiteSchema.quote(table.name)) t0")
        return conditions.isEmpty ? from : from + " WHERE " + SQLFragment.joined(conditions, separator: " AND ")
    }
}
