import Foundation
import ObjectStack

extension SQLiteStore {
    /// Checks every uniqueness constraint of every written row against the save itself and the store, by the rule
    /// every store keeps (`UniquenessCheck`: request order, keepers of their values claiming nothing).
    ///
    /// Done with queries rather than UNIQUE indexes, so the error names the object that already holds the
    /// values, and so a save that swaps values between objects is not refused half-way.
    func checkUniqueness(_ request: StoreSaveRequest, _ db: SQLiteConnection) throws {
        // A hierarchy with no rows yet cannot clash with the store, only within the save: skip the lookups
        // (the common bulk import into a new store).
        var isEmpty: [String: Bool] = [:]
        func tableIsEmpty(_ table: SQLiteSchema.Table) throws -> Bool {
            if let known = isEmpty[table.name] { return known }
            let statement = try db.statement("SELECT NOT EXISTS (SELECT 1 FROM \(SQLiteSchema.quote(table.name)))")
            defer { statement.reset() }
            let empty = try statement.step() && statement.int(0) == 1
            isEmpty[table.name] = empty
            return empty
        }
        // Each constraint's query, made once per save (building it for every row was a seventh of a bulk insert).
        var queries: [Int: String] = [:]
        try UniquenessCheck(request).run(url: url) { claim, visit in
            let table = schema.table(for: claim.declaring)
            if try tableIsEmpty(table) { return }
            let query =
                queries[claim.number]
                ?? {
                    let made = uniquenessQuery(claim.declaring, claim.attributes)
                    queries[claim.number] = made
                    return made
                }()
            let statement = try db.statement(query)
            defer { statement.reset() }
            for (index, value) in claim.values.enumerated() { statement.bind(value, at: Int32(index + 1)) }
            statement.bindInt(claim.claimant.key, at: Int32(claim.values.count + 1))
            while try statement.step() {
                let entity = table.entitiesByCode[statement.int(1)] ?? claim.claimant.entity
                if try !visit(statement.int(0), entity) { return }
            }
        }
    }

    private func uniquenessQuery(_ declaring: EntityDescription, _ attributes: [AttributeDescription]) -> String {
        let table = schema.table(for: declaring)
        let tests = attributes.map { "\(schema.column($0)) = ?" }.joined(separator: " AND ")
        return "SELECT Z_PK, Z_ENT FROM \(SQLiteSchema.quote(table.name)) WHERE \(tests) "
            + "AND Z_ENT IN (\(table.codeList(declaring.selfAndDescendants))) AND Z_PK != ?"
    }
}
