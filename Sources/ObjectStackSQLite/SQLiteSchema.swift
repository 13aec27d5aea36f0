import Foundation
import ObjectStack

/// How a model maps to SQL: Core Data's own SQLite layout (`COREDATA-SQLITE.md` in the project's shared data).
///
/// One table per root entity, `"Z" + UPPER(root name)`, shared by its sub-entities, with `Z_PK` (the primary key,
/// unique in the hierarchy), `Z_ENT` (the concrete entity's code, from `Z_PRIMARYKEY`) and `Z_OPT` (the row's
/// version); then `"Z" + UPPER(name)` for each stored attribute and to-one relationship of any entity of the
/// hierarchy, a number appended where two share a name (`ZTEXT`, `ZTEXT1`). A to-one whose destination has
/// sub-entities has a second column, `"Z<n>_" + UPPER(name)`, with the destination's entity code (`n` is the
/// destination's code). An ordered to-many whose inverse is a to-one keeps its order in the destination's table,
/// `"Z_FOK_" + UPPER(inverse)`. Many-to-many relationships (and to-manys without an inverse) keep their links in
/// join tables (`JoinTable`).
///
/// Names and entity codes come from the file when it has them (a store Core Data wrote keeps its own), else from
/// Core Data's rules.
/// - Note: Immutable; safe to share between threads.
struct SQLiteSchema: Sendable {
    /// What a column of an entity table holds.
    enum ColumnContent: Sendable {
        case attribute(AttributeDescription)
        case foreignKey(RelationshipDescription)
        /// The concrete entity code of a to-one's destination.
        case foreignEntity(RelationshipDescription)
    }

    struct Column: Sendable {
        let name: String
        let content: ColumnContent

        var sqlType: String {
            switch content {
            case .foreignKey, .foreignEntity: return "INTEGER"
            case .attribute(let attribute): return SQLiteSchema.sqlType(of: attribute.type)
            }
        }
    }

    /// The table of one entity hierarchy.
    struct Table: Sendable {
        let name: String
        let root: EntityDescription
        let columns: [Column]
        /// The order columns (`Z_FOK_…`) of ordered to-manys kept in this table, by the relationship's storage key:
        /// not part of a row's values, written and read by position queries.
        let orderColumns: [String: String]
        /// Entity codes (`Z_ENT`) by entity name, and back.
        let codes: [String: Int64]
        let entitiesByCode: [Int64: EntityDescription]
        /// Per concrete entity: for each `storedIndex`, the column's position in `columns`.
        let storedColumns: [String: [Int]]
        /// Per concrete entity: the position of each to-one's entity-code column, by `storedIndex` (nil if none).
        let storedEntityColumns: [String: [Int?]]
        /// `t0.Z_PK, t0.Z_ENT, t0.Z_OPT` and every column, quoted: what `SQLiteRowReader` reads, built once
        /// (building it for every statement showed in fetch profiles).
        let rowColumns: String
        /// The query that reads one row by primary key, built once: a lookup by ID (`existingObject(with:)`)
        /// runs it per object, and building the text each time showed in its profile.
        let selectByPrimaryKey: String
        /// The query that reads one row's version (`Z_OPT`) by primary key: a save runs it per updated row.
        let selectVersionByPrimaryKey: String

        static func rowColumns(of columns: [Column]) -> String {
            (["Z_PK", "Z_ENT", "Z_OPT"] + columns.map { SQLiteSchema.quote($0.name) }).map { "t0.\($0)" }.joined(
                separator: ", ")
        }

        /// The codes of entities, comma-separated for `Z_ENT IN (...)`.
        func codeList(_ entities: [EntityDescription]) -> String {
            entities.compactMap { codes[$0.name] }.map(String.init).joined(separator: ", ")
        }

        /// The entity code of the hierarchy's root: the row of `Z_PRIMARYKEY` that keeps `Z_MAX`.
        var rootCode: Int64 { codes[root.name]! }
    }

    /// A many-to-many (or inverse-less to-many) relationship's links: `"Z_<a>" + UPPER(A's relationship)`, where A
    /// is the side with the lower entity code, with a column of A's keys and one of B's, each named after the
    /// relationship whose destination it holds, and an order column (`Z_FOK_…`) for each ordered side.
    struct JoinTable: Sendable {
        let name: String
        /// The relationship whose storage key names the links (`RelationshipDescription.joinTableOwner`).
        let owner: RelationshipDescription
        /// The column of the keys of the objects that hold `owner` (the links' sources).
        let sourceColumn: String
        /// The column of the keys of `owner`'s members (the links' destinations).
        let destinationColumn: String
        /// The order of `owner`'s members, when `owner` is ordered.
        let ownerOrderColumn: String?
        /// The order of the inverse's members, when the inverse is ordered.
        let inverseOrderColumn: String?
        /// The two key columns in the primary key's order: side A's keys, then side B's.
        let keyColumns: [String]

        /// The columns a relationship reads its members through: its own side's keys, then the members'.
        func columns(for relationship: RelationshipDescription) -> (mine: String, theirs: String) {
            relationship === owner ? (sourceColumn, destinationColumn) : (destinationColumn, sourceColumn)
        }

        /// The order column of a relationship's members, nil when it is not ordered.
        func orderColumn(for relationship: RelationshipDescription) -> String? {
            relationship === owner ? ownerOrderColumn : inverseOrderColumn
        }
    }

    let tables: [String: Table]
    let joinTables: [String: JoinTable]
    /// Entity codes by entity name, for every entity of the model (abstract ones too).
    let codes: [String: Int64]
    private let columnNames: [ObjectIdentifier: String]
    private let entityColumnNames: [ObjectIdentifier: String]
    private let namedColumns: [String: String]

    /// Lays out `entities` as Core Data does, keeping the codes and names `file` already has.
    init(entities: [EntityDescription], file: SQLiteStoreFile? = nil) {
        let codes = Self.entityCodes(entities, existing: file?.entityRows ?? [:])
        self.codes = codes
        var tables: [String: Table] = [:]
        var joinTables: [String: JoinTable] = [:]
        var columnNames: [ObjectIdentifier: String] = [:]
        var entityColumnNames: [ObjectIdentifier: String] = [:]
        var orderColumns: [String: [String: String]] = [:]
        let roots = entities.filter { $0.superentity == nil }
        let tableNames = Dictionary(uniqueKeysWithValues: roots.map { ($0.name, Self.tableName(of: $0)) })
        for root in roots {
            let family = Self.inCodeOrder(root.selfAndDescendants, codes: codes)
            var namer = ColumnNamer()
            var columns: [Column] = []
            var positions: [ObjectIdentifier: Int] = [:]
            var entityPositions: [ObjectIdentifier: Int] = [:]
            for entity in family {
                for attribute in entity.declaredAttributes where attribute.storedIndex != nil {
                    let name = namer.name(for: attribute.name)
                    columnNames[ObjectIdentifier(attribute)] = name
                    positions[ObjectIdentifier(attribute)] = columns.count
                    columns.append(Column(name: name, content: .attribute(attribute)))
                }
                for relationship in entity.declaredRelationships where relationship.storedIndex != nil {
                    let name = namer.name(for: relationship.name)
                    columnNames[ObjectIdentifier(relationship)] = name
                    positions[ObjectIdentifier(relationship)] = columns.count
                    columns.append(Column(name: name, content: .foreignKey(relationship)))
                    if Self.isPolymorphic(relationship.destinationEntity) {
                        let code = codes[relationship.destinationEntity.name] ?? 0
                        let entityName = "Z\(code)_" + Self.upper(relationship.name)
                        entityColumnNames[ObjectIdentifier(relationship)] = entityName
                        entityPositions[ObjectIdentifier(relationship)] = columns.count
                        columns.append(Column(name: entityName, content: .foreignEntity(relationship)))
                    }
                }
            }
            for entity in family {
                for relationship in entity.declaredRelationships
                where relationship.isToMany && !relationship.isTransient {
                    switch relationship.storage {
                    case .inverseForeignKey where relationship.isOrdered:
                        // The order of an ordered to-many lives with its members: in the destination's table.
                        let inverse = relationship.inverse!
                        let destinationRoot = relationship.destinationEntity.rootEntity.name
                        orderColumns[destinationRoot, default: [:]][relationship.storageKey] =
                            "Z_FOK_" + Self.upper(inverse.name)
                    case .joinTable:
                        let owner = relationship.joinTableOwner
                        guard joinTables[owner.storageKey] == nil else { continue }
                        joinTables[owner.storageKey] = Self.joinTable(owner, codes: codes, file: file)
                    default:
                        break
                    }
                }
            }
            let codeMap = Dictionary(uniqueKeysWithValues: family.map { ($0.name, codes[$0.name]!) })
            var byCode: [Int64: EntityDescription] = [:]
            for entity in family { byCode[codes[entity.name]!] = entity }
            var stored: [String: [Int]] = [:]
            var storedEntity: [String: [Int?]] = [:]
            for entity in family {
                stored[entity.name] = entity.storedProperties.map { property in
                    switch property {
                    case .attribute(let a): return positions[ObjectIdentifier(a)]!
                    case .toOne(let r): return positions[ObjectIdentifier(r)]!
                    }
                }
                storedEntity[entity.name] = entity.storedProperties.map { property in
                    if case .toOne(let r) = property { return entityPositions[ObjectIdentifier(r)] }
                    return nil
                }
            }
            let name = tableNames[root.name]!
            let rowColumns = Table.rowColumns(of: columns)
            tables[root.name] = Table(
                name: name, root: root, columns: columns, orderColumns: [:], codes: codeMap, entitiesByCode: byCode,
                storedColumns: stored, storedEntityColumns: storedEntity, rowColumns: rowColumns,
                selectByPrimaryKey: "SELECT \(rowColumns) FROM \(SQLiteSchema.quote(name)) t0 WHERE t0.Z_PK = ?",
                selectVersionByPrimaryKey: "SELECT Z_OPT FROM \(SQLiteSchema.quote(name)) WHERE Z_PK = ?")
        }
        for (root, columns) in orderColumns {
            guard let table = tables[root] else { continue }
            tables[root] = table.with(orderColumns: columns)
        }
        self.tables = tables
        self.joinTables = joinTables
        self.columnNames = columnNames
        self.entityColumnNames = entityColumnNames
        var named: [String: String] = [:]
        for table in tables.values {
            for column in table.columns {
                switch column.content {
                case .attribute(let a): named[a.name] = named[a.name] ?? column.name
                case .foreignKey(let r): named[r.name] = named[r.name] ?? column.name
                case .foreignEntity: break
                }
            }
        }
        namedColumns = named
    }

    /// Whether objects of an entity may be of several entities, so a reference to one needs an entity code:
    /// Core Data adds the code column whenever the destination has sub-entities.
    static func isPolymorphic(_ entity: EntityDescription) -> Bool {
        !entity.subentities.isEmpty
    }

    /// Core Data's declared SQL type of each attribute type. The type decides SQLite's column affinity: a
    /// TIMESTAMP or DECIMAL column (NUMERIC affinity) gives a whole number back as an INTEGER, which the readers
    /// accept.
    static func sqlType(of type: AttributeType) -> String {
        switch type {
        case .integer16, .integer32, .integer64, .boolean: return "INTEGER"
        case .date: return "TIMESTAMP"
        case .double, .float: return "FLOAT"
        case .decimal: return "DECIMAL"
        case .string, .uri: return "VARCHAR"
        case .binaryData, .transformable, .uuid: return "BLOB"
        }
    }

    static func quote(_ identifier: String) -> String {
        // Called for every column of every statement built: Foundation's replacingOccurrences (through
        // NSString) was most of a fetch by ID, and identifiers almost never hold a quote.
        guard identifier.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + identifier + "\"" }
        return "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    func table(for entity: EntityDescription) -> Table { tables[entity.rootEntity.name]! }

    /// The quoted column of an attribute or to-one relationship.
    ///
    /// Properties are matched by identity; one of an equal model built separately falls back to its name.
    func column(_ attribute: AttributeDescription) -> String {
        Self.quote(columnNames[ObjectIdentifier(attribute)] ?? namedColumns[attribute.name] ?? attribute.name)
    }
    func column(_ relationship: RelationshipDescription) -> String {
        Self.quote(columnNames[ObjectIdentifier(relationship)] ?? namedColumns[relationship.name] ?? relationship.name)
    }
    func entityColumn(_ relationship: RelationshipDescription) -> String? {
        entityColumnNames[ObjectIdentifier(relationship)].map(Self.quote)
    }

    /// Where an ordered to-many keeps its members' positions: the table and its (quoted) order column; nil for a
    /// relationship that is not ordered.
    func orderColumn(of relationship: RelationshipDescription) -> (table: String, column: String)? {
        guard relationship.isToMany, relationship.isOrdered else { return nil }
        switch relationship.storage {
        case .inverseForeignKey:
            let table = self.table(for: relationship.destinationEntity)
            return table.orderColumns[relationship.storageKey].map { (table.name, Self.quote($0)) }
        case .joinTable:
            guard let join = joinTables[relationship.joinTableOwner.storageKey],
                let column = join.orderColumn(for: relationship)
            else { return nil }
            return (join.name, Self.quote(column))
        case .foreignKey:
            return nil
        }
    }
}

extension SQLiteSchema.Table {
    /// The same table with its order columns.
    fileprivate func with(orderColumns: [String: String]) -> SQLiteSchema.Table {
        SQLiteSchema.Table(
            name: name, root: root, columns: columns, orderColumns: orderColumns, codes: codes,
            entitiesByCode: entitiesByCode, storedColumns: storedColumns, storedEntityColumns: storedEntityColumns,
            rowColumns: rowColumns, selectByPrimaryKey: selectByPrimaryKey,
            selectVersionByPrimaryKey: selectVersionByPrimaryKey)
    }
}
