import Foundation
import ObjectStack

/// How a model maps to SQL: one table per entity hierarchy, one column per stored property, join tables.
///
/// Every table has `Z_PK` (the primary key), `Z_ENT` (the concrete entity, as a code within the hierarchy)
/// and `Z_OPT` (the row version). Attributes declared by the root keep their name as column name; those of
/// sub-entities are prefixed with the declaring entity, so siblings may reuse a name. A to-one is a key
/// column, plus an entity-code column when its destination hierarchy has several concrete entities.
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
    }

    /// A many-to-many (or inverse-less to-many) relationship's links.
    struct JoinTable: Sendable {
        let name: String
        let owner: RelationshipDescription
    }

    let tables: [String: Table]
    let joinTables: [String: JoinTable]
    private let columnNames: [ObjectIdentifier: String]
    private let entityColumnNames: [ObjectIdentifier: String]
    private let namedColumns: [String: String]

    init(entities: [EntityDescription]) {
        var tables: [String: Table] = [:]
        var joinTables: [String: JoinTable] = [:]
        var columnNames: [ObjectIdentifier: String] = [:]
        var entityColumnNames: [ObjectIdentifier: String] = [:]
        let roots = entities.filter { $0.superentity == nil }
        for root in roots {
            let family = root.selfAndDescendants
            var columns: [Column] = []
            var positions: [ObjectIdentifier: Int] = [:]
            var entityPositions: [ObjectIdentifier: Int] = [:]
            for entity in family {
                let prefix = entity === root ? "" : "\(entity.name)_"
                for attribute in entity.declaredAttributes where attribute.storedIndex != nil {
                    let name = prefix + attribute.name
                    columnNames[ObjectIdentifier(attribute)] = name
                    positions[ObjectIdentifier(attribute)] = columns.count
                    columns.append(Column(name: name, content: .attribute(attribute)))
                }
                for relationship in entity.declaredRelationships where relationship.storedIndex != nil {
                    let name = prefix + relationship.name
                    columnNames[ObjectIdentifier(relationship)] = name
                    positions[ObjectIdentifier(relationship)] = columns.count
                    columns.append(Column(name: name, content: .foreignKey(relationship)))
                    if Self.isPolymorphic(relationship.destinationEntity) {
                        entityColumnNames[ObjectIdentifier(relationship)] = name + "_ent"
                        entityPositions[ObjectIdentifier(relationship)] = columns.count
                        columns.append(Column(name: name + "_ent", content: .foreignEntity(relationship)))
                    }
                }
                for relationship in entity.declaredRelationships where relationship.storage == .joinTable {
                    let owner = relationship.joinTableOwner
                    joinTables[owner.storageKey] = JoinTable(
                        name: "J_" + owner.storageKey.replacingOccurrences(of: ".", with: "_"), owner: owner)
                }
            }
            let names = family.map(\.name).sorted()
            var codes: [String: Int64] = [:]
            var byCode: [Int64: EntityDescription] = [:]
            for entity in family {
                let code = Int64(names.firstIndex(of: entity.name)! + 1)
                codes[entity.name] = code
                byCode[code] = entity
            }
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
            let rowColumns = Table.rowColumns(of: columns)
            tables[root.name] = Table(
                name: "Z_" + root.name, root: root, columns: columns, codes: codes, entitiesByCode: byCode,
                storedColumns: stored, storedEntityColumns: storedEntity, rowColumns: rowColumns,
                selectByPrimaryKey:
                    "SELECT \(rowColumns) FROM \(SQLiteSchema.quote("Z_" + root.name)) t0 WHERE t0.Z_PK = ?",
                selectVersionByPrimaryKey: "SELECT Z_OPT FROM \(SQLiteSchema.quote("Z_" + root.name)) WHERE Z_PK = ?")
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

    /// Whether objects of an entity may be of several concrete entities (so references need an entity code).
    static func isPolymorphic(_ entity: EntityDescription) -> Bool {
        entity.selfAndDescendants.filter { !$0.isAbstract }.count > 1
    }

    static func sqlType(of type: AttributeType) -> String {
        switch type {
        case .integer16, .integer32, .integer64, .boolean: return "INTEGER"
        case .double, .float, .date: return "REAL"
        case .decimal, .string, .uri: return "TEXT"
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

    // MARK: - DDL

    /// An index of an entity table: its name and its columns, in order.
    struct Index: Sendable, Equatable {
        let name: String
        let columns: [String]
    }

    /// The indexes a table has: uniqueness constraints (checked by queries inside each save, so the error can
    /// name the object that already holds the values; the index makes that lookup cheap), fetch indexes,
    /// indexed attributes, and the key column of every to-one (to-many relationships are read through the
    /// inverse's key column). One index per column list.
    func indexes(of table: Table) -> [Index] {
        var result: [Index] = []
        var indexed: Set<[String]> = []
        func index(_ name: String, _ columns: [String]) {
            guard !columns.isEmpty, indexed.insert(columns).inserted else { return }
            result.append(Index(name: "I_\(table.name)_\(name)", columns: columns))
        }
        for entity in table.root.selfAndDescendants {
            for constraint in entity.uniquenessConstraints {
                index(
                    "\(entity.name)_unique_\(constraint.joined(separator: "_"))",
                    constraint.compactMap { entity.attributesByName[$0] }.map { columnNames[ObjectIdentifier($0)]! })
            }
            for model in entity.indexes {
                index(
                    "\(entity.name)_\(model.name)",
                    model.attributeNames.compactMap { entity.attributesByName[$0] }.map {
                        columnNames[ObjectIdentifier($0)]!
                    })
            }
            for attribute in entity.declaredAttributes where attribute.isIndexed && attribute.storedIndex != nil {
                index("\(entity.name)_\(attribute.name)", [columnNames[ObjectIdentifier(attribute)]!])
            }
            for relationship in entity.declaredRelationships where relationship.storedIndex != nil {
                index("\(entity.name)_\(relationship.name)", [columnNames[ObjectIdentifier(relationship)]!])
            }
        }
        return result
    }

    /// The statements that create the schema (idempotent).
    var creationSQL: [String] {
        var statements: [String] = [
            "CREATE TABLE IF NOT EXISTS Z_METADATA (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
            "CREATE TABLE IF NOT EXISTS Z_PRIMARYKEY (root TEXT PRIMARY KEY, max INTEGER NOT NULL)",
        ]
        for table in tables.values.sorted(by: { $0.name < $1.name }) {
            let columns =
                ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER NOT NULL", "Z_OPT INTEGER NOT NULL"]
                + table.columns.map { "\(Self.quote($0.name)) \($0.sqlType)" }
            statements.append(
                "CREATE TABLE IF NOT EXISTS \(Self.quote(table.name)) (\(columns.joined(separator: ", ")))")
            statements.append("INSERT OR IGNORE INTO Z_PRIMARYKEY (root, max) VALUES ('\(table.root.name)', 0)")
            for index in indexes(of: table) {
                statements.append(
                    "CREATE INDEX IF NOT EXISTS \(Self.quote(index.name)) ON \(Self.quote(table.name)) "
                        + "(\(index.columns.map(Self.quote).joined(separator: ", ")))")
            }
        }
        for join in joinTables.values.sorted(by: { $0.name < $1.name }) {
            let name = Self.quote(join.name)
            statements.append(
                "CREATE TABLE IF NOT EXISTS \(name) (src INTEGER NOT NULL, dst INTEGER NOT NULL, UNIQUE (src, dst))")
            statements.append("CREATE INDEX IF NOT EXISTS \(Self.quote("I_\(join.name)_dst")) ON \(name) (dst)")
        }
        return statements
    }
}
