import Foundation
import ObjectStack

extension SQLiteSchema {
    // MARK: - Indexes

    /// An index of a table: its name, its columns in order, and whether it is unique.
    struct Index: Sendable, Equatable {
        let name: String
        let table: String
        let columns: [String]
        var isUnique = false
        /// Whether the columns are written `COLLATE BINARY ASC`, as Core Data writes fetch and uniqueness indexes.
        var isFetchIndex = false

        var creationSQL: String {
            let list = columns.map { SQLiteSchema.quote($0) + (isFetchIndex ? " COLLATE BINARY ASC" : "") }
            return "CREATE \(isUnique ? "UNIQUE " : "")INDEX IF NOT EXISTS \(SQLiteSchema.quote(name)) ON "
                + "\(SQLiteSchema.quote(table)) (\(list.joined(separator: ", ")))"
        }
    }

    /// The indexes Core Data gives a table, by its names:
    /// - `<TABLE>_Z_ENT_INDEX` on `Z_ENT` when the hierarchy has several entities;
    /// - `<TABLE>_<COLUMN>_INDEX` on each to-one's key column and each attribute indexed on its own;
    /// - `<TABLE>_<COLUMN>_<COLUMN>…` for a legacy compound index;
    /// - `Z_<Entity>_<name>` for a fetch index;
    /// - `Z_<Entity>_UNIQUE_<attribute>_…`, unique, for a uniqueness constraint.
    ///
    /// A save checks uniqueness constraints with queries before it writes, so the error can name the object that
    /// already holds the values; the unique index keeps other writers (Core Data) to them too.
    func indexes(of table: Table) -> [Index] {
        var result: [Index] = []
        var seen: Set<String> = []
        func add(_ index: Index) {
            guard !index.columns.isEmpty, seen.insert(index.name).inserted else { return }
            result.append(index)
        }
        let family = Self.inCodeOrder(table.root.selfAndDescendants, codes: codes)
        if family.count > 1 { add(Index(name: "\(table.name)_Z_ENT_INDEX", table: table.name, columns: ["Z_ENT"])) }
        for entity in family {
            for relationship in entity.declaredRelationships where relationship.storedIndex != nil {
                let column = columnName(relationship)
                add(Index(name: "\(table.name)_\(column)_INDEX", table: table.name, columns: [column]))
            }
            for attribute in entity.declaredAttributes where attribute.isIndexed && attribute.storedIndex != nil {
                let column = columnName(attribute)
                add(Index(name: "\(table.name)_\(column)_INDEX", table: table.name, columns: [column]))
            }
            for index in entity.indexes {
                let columns = index.attributeNames.compactMap { entity.attributesByName[$0] }.filter {
                    $0.storedIndex != nil
                }.map(columnName)
                if index.name.hasPrefix("compound_") {
                    add(
                        Index(
                            name: ([table.name] + columns).joined(separator: "_"), table: table.name, columns: columns))
                } else {
                    add(
                        Index(
                            name: "Z_\(entity.name)_\(index.name)", table: table.name, columns: columns,
                            isFetchIndex: true))
                }
            }
            for constraint in entity.uniquenessConstraints {
                let attributes = constraint.compactMap { entity.attributesByName[$0] }.filter { $0.storedIndex != nil }
                guard attributes.count == constraint.count else { continue }
                add(
                    Index(
                        name: "Z_\(entity.name)_UNIQUE_" + constraint.joined(separator: "_"), table: table.name,
                        columns: attributes.map(columnName), isUnique: true, isFetchIndex: true))
            }
        }
        return result
    }

    /// A property's column name, unquoted.
    func columnName(_ attribute: AttributeDescription) -> String { Self.unquote(column(attribute)) }
    func columnName(_ relationship: RelationshipDescription) -> String { Self.unquote(column(relationship)) }

    private static func unquote(_ quoted: String) -> String {
        String(quoted.dropFirst().dropLast()).replacingOccurrences(of: "\"\"", with: "\"")
    }

    // MARK: - Creating a store

    /// The statements that create a new store's tables and indexes, and its `Z_PRIMARYKEY` rows, as Core Data
    /// creates them. The caller writes `Z_METADATA`'s row.
    var creationSQL: [String] {
        var statements = [
            "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
            "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
        ]
        for table in tables.values.sorted(by: { $0.name < $1.name }) {
            let columns =
                ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"]
                + Self.inTypeOrder(table).map { "\(Self.quote($0.name)) \($0.type)" }
            statements.append("CREATE TABLE \(Self.quote(table.name)) ( \(columns.joined(separator: ", ")) )")
            for index in indexes(of: table) { statements.append(index.creationSQL) }
        }
        for join in joinTables.values.sorted(by: { $0.name < $1.name }) {
            let (first, second) = (join.keyColumns[0], join.keyColumns[1])
            var columns = ["\(Self.quote(first)) INTEGER", "\(Self.quote(second)) INTEGER"]
            for order in [join.ownerOrderColumn, join.inverseOrderColumn].compactMap({ $0 }) {
                columns.append("\(Self.quote(order)) INTEGER")
            }
            statements.append(
                "CREATE TABLE \(Self.quote(join.name)) ( \(columns.joined(separator: ", ")), "
                    + "PRIMARY KEY (\(Self.quote(first)), \(Self.quote(second))) )")
            statements.append(
                "CREATE INDEX IF NOT EXISTS \(Self.quote("\(join.name)_\(second)_INDEX")) ON \(Self.quote(join.name)) "
                    + "(\(Self.quote(second)), \(Self.quote(first)))")
        }
        for (name, code) in codes.sorted(by: { $0.value < $1.value }) {
            let entity = tables.values.lazy.compactMap { $0.entitiesByCode[code] }.first
            let parent = entity?.superentity.flatMap { codes[$0.name] } ?? 0
            statements.append(
                "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (\(code), "
                    + "'\(name.replacingOccurrences(of: "'", with: "''"))', \(parent), 0)")
        }
        return statements
    }

    /// The columns of a table as Core Data orders them: integers, keys (with entity codes), order columns, dates,
    /// floating point, decimals, text, blobs; declaration order within each group.
    static func inTypeOrder(_ table: Table) -> [(name: String, type: String)] {
        func group(_ column: Column) -> Int {
            switch column.content {
            case .foreignKey, .foreignEntity: return 1
            case .attribute(let attribute):
                switch attribute.type {
                case .integer16, .integer32, .integer64, .boolean: return 0
                case .date: return 3
                case .double, .float: return 4
                case .decimal: return 5
                case .string, .uri: return 6
                case .binaryData, .transformable, .uuid: return 7
                }
            }
        }
        var columns = table.columns.enumerated().map { (group($1), $0, $1.name, $1.sqlType) }
        for (position, name) in table.orderColumns.values.sorted().enumerated() {
            columns.append((2, position, name, "INTEGER"))
        }
        return columns.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map { ($0.2, $0.3) }
    }
}
