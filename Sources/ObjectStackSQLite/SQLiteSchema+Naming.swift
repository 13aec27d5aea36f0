import Foundation
import ObjectStack

extension SQLiteSchema {
    // MARK: - Core Data's naming rules

    /// Every entity's code (`Z_ENT`): the file's, from `Z_PRIMARYKEY` (by name or renaming identifier), when it has
    /// one; else Core Data's
    /// numbering, from 1: roots sorted by name without regard to case, each followed depth-first by its sorted
    /// sub-entities. An entity the file does not know (none, for a store of the model) gets the next free code.
    static func entityCodes(_ entities: [EntityDescription], existing: [String: SQLiteStoreFile.EntityRow])
        -> [String: Int64]
    {
        var ordered: [EntityDescription] = []
        func visit(_ entity: EntityDescription) {
            ordered.append(entity)
            for child in sortedByName(entity.subentities) { visit(child) }
        }
        for root in sortedByName(entities.filter { $0.superentity == nil }) { visit(root) }
        var codes: [String: Int64] = [:]
        if existing.isEmpty {
            for (position, entity) in ordered.enumerated() { codes[entity.name] = Int64(position + 1) }
            return codes
        }
        var next =
            (existing.values.filter { $0.code < SQLiteStoreFile.firstHistoryEntityCode }.map(\.code).max() ?? 0) + 1
        for entity in ordered {
            // Core Data keeps an entity's row when a migration renames it (`elementID`/renaming identifier): the row
            // of `ExpensiveSportCar` holds the code of the entity now named `LuxuryCar`.
            if let row = existing[entity.name] ?? entity.renamingIdentifier.flatMap({ existing[$0] }) {
                codes[entity.name] = row.code
            } else {
                codes[entity.name] = next
                next += 1
            }
        }
        return codes
    }

    private static func sortedByName(_ entities: [EntityDescription]) -> [EntityDescription] {
        entities.sorted {
            let (a, b) = ($0.name.lowercased(), $1.name.lowercased())
            return a != b ? a < b : $0.name < $1.name
        }
    }

    /// Entities in code order (a hierarchy's root first).
    static func inCodeOrder(_ entities: [EntityDescription], codes: [String: Int64]) -> [EntityDescription] {
        entities.sorted { (codes[$0.name] ?? 0) < (codes[$1.name] ?? 0) }
    }

    /// A root entity's table: `"Z" + UPPER(name)`.
    static func tableName(of root: EntityDescription) -> String { "Z" + upper(root.name) }

    /// A name upper-cased as table and column names spell it (Swift's `uppercased()` is the same in every locale).
    static func upper(_ name: String) -> String { name.uppercased() }

    /// Hands out a table's column names: `"Z" + UPPER(name)`, with a number appended to a name the table already
    /// has (`ZTEXT`, `ZTEXT1`, `ZTEXT2`).
    struct ColumnNamer {
        private var taken: Set<String> = ["Z_PK", "Z_ENT", "Z_OPT"]

        mutating func name(for property: String) -> String {
            // A composite element is stored as an attribute named by its key path (`location.x`): ZLOCATION_X.
            let base = "Z" + SQLiteSchema.upper(property).replacingOccurrences(of: ".", with: "_")
            var candidate = base
            var suffix = 1
            while taken.contains(candidate) {
                candidate = base + String(suffix)
                suffix += 1
            }
            taken.insert(candidate)
            return candidate
        }
    }

    /// The join table of a many-to-many relationship (or a to-many without an inverse).
    ///
    /// With an inverse: A is the side whose entity has the lower code (for a relationship of an entity to itself,
    /// either side: a file that has the other side's table keeps it). The table is `"Z_<a>" + UPPER(A's
    /// relationship)`; A's keys are in `"Z_<a>" + UPPER(B's relationship)`, B's in `"Z_<b>" + UPPER(A's
    /// relationship)` (a number appended when the two names are equal); an ordered side keeps its members' order
    /// in `"Z_FOK_"` + its members' column without `"Z_"`.
    ///
    /// Without an inverse (no real store shows Core Data's table): `"Z_<a>" + UPPER(relationship)`, the owners'
    /// keys in `"Z_<a>" + UPPER(owner entity)`, the members' in `"Z_<b>" + UPPER(relationship)`.
    static func joinTable(_ owner: RelationshipDescription, codes: [String: Int64], file: SQLiteStoreFile?)
        -> JoinTable
    {
        let ownerEntity = owner.entity!
        guard let inverse = owner.inverse else {
            let a = codes[ownerEntity.name] ?? 0
            let b = codes[owner.destinationEntity.name] ?? 0
            let source = "Z_\(a)" + upper(ownerEntity.name)
            var destination = "Z_\(b)" + upper(owner.name)
            if destination == source { destination += "1" }
            return JoinTable(
                name: "Z_\(a)" + upper(owner.name), owner: owner, sourceColumn: source, destinationColumn: destination,
                ownerOrderColumn: owner.isOrdered ? "Z_FOK_" + destination.dropFirst(2) : nil, inverseOrderColumn: nil,
                keyColumns: [source, destination])
        }
        let ownerCode = codes[ownerEntity.name] ?? 0
        let inverseCode = codes[inverse.entity.name] ?? 0
        // Side A: the lower code; for one entity on both sides, the side whose table the file has, else the owner.
        var sideA = ownerCode <= inverseCode ? owner : inverse
        if ownerCode == inverseCode, let file {
            let ownerTable = "Z_\(ownerCode)" + upper(owner.name)
            let inverseTable = "Z_\(inverseCode)" + upper(inverse.name)
            if file.columns[ownerTable] == nil, file.columns[inverseTable] != nil { sideA = inverse }
        }
        let sideB = sideA === owner ? inverse : owner
        let a = codes[sideA.entity.name] ?? 0
        let b = codes[sideB.entity.name] ?? 0
        let keysOfA = "Z_\(a)" + upper(sideB.name)
        var keysOfB = "Z_\(b)" + upper(sideA.name)
        if keysOfB == keysOfA { keysOfB += "1" }
        // A's relationship orders B's keys; B's orders A's.
        let orderOfA = sideA.isOrdered ? "Z_FOK_" + keysOfB.dropFirst(2) : nil
        let orderOfB = sideB.isOrdered ? "Z_FOK_" + keysOfA.dropFirst(2) : nil
        let ownerIsA = sideA === owner
        return JoinTable(
            name: "Z_\(a)" + upper(sideA.name), owner: owner,
            sourceColumn: ownerIsA ? keysOfA : keysOfB, destinationColumn: ownerIsA ? keysOfB : keysOfA,
            ownerOrderColumn: ownerIsA ? orderOfA : orderOfB, inverseOrderColumn: ownerIsA ? orderOfB : orderOfA,
            keyColumns: [keysOfA, keysOfB])
    }
}
