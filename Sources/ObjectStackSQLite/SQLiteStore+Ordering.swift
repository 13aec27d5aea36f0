import CSQLite
import Foundation
import ObjectStack

extension SQLiteStore {
    // MARK: - Ordered relationships

    /// The position Core Data gives the first member of an ordered to-many, and the step between members: sparse,
    /// so that a member can be placed between two others without renumbering.
    static let firstOrderPosition: Int64 = 2048
    static let orderPositionStep: Int64 = 1024

    /// Places members appended to an ordered to-many after those the store holds: positions (`Z_FOK_…`) from the
    /// largest one the object's other members have, 1024 apart.
    func place(_ addition: StoreSaveRequest.OrderedAddition, _ db: SQLiteConnection) throws {
        let relationship = addition.relationship
        guard !addition.members.isEmpty, let (table, column) = schema.orderColumn(of: relationship) else { return }
        let quotedTable = SQLiteSchema.quote(table)
        let owner: String
        let member: String
        switch relationship.storage {
        case .inverseForeignKey:
            owner = schema.column(relationship.inverse!)
            member = "Z_PK"
        case .joinTable:
            guard let join = schema.joinTables[relationship.joinTableOwner.storageKey] else { return }
            let columns = join.columns(for: relationship)
            owner = SQLiteSchema.quote(columns.mine)
            member = SQLiteSchema.quote(columns.theirs)
        case .foreignKey:
            return
        }
        let keys = addition.members.filter { !$0.isTemporaryID }.map(\.key)
        let last = try db.statement(
            "SELECT MAX(\(column)) FROM \(quotedTable) WHERE \(owner) = ? "
                + "AND \(member) NOT IN (SELECT value FROM json_each(?))")
        defer { last.reset() }
        last.bindInt(addition.source.key, at: 1)
        last.bindText(Self.jsonArray(keys), at: 2)
        var position =
            try last.step() && !last.isNull(0)
            ? last.int(0) + Self.orderPositionStep : Self.firstOrderPosition
        let update = try db.statement("UPDATE \(quotedTable) SET \(column) = ? WHERE \(owner) = ? AND \(member) = ?")
        defer { update.reset() }
        for key in keys {
            update.bindInt(position, at: 1)
            update.bindInt(addition.source.key, at: 2)
            update.bindInt(key, at: 3)
            try update.run()
            position += Self.orderPositionStep
        }
    }
}
