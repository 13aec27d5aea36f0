import Foundation

extension SQLiteSchema {
    /// The tables and columns a store of this schema has, with their declared SQL types.
    var expectedTables: [(name: String, columns: [(name: String, type: String)])] {
        var expected: [(name: String, columns: [(name: String, type: String)])] = [
            (
                "Z_PRIMARYKEY",
                [("Z_ENT", "INTEGER"), ("Z_NAME", "VARCHAR"), ("Z_SUPER", "INTEGER"), ("Z_MAX", "INTEGER")]
            ),
            ("Z_METADATA", [("Z_VERSION", "INTEGER"), ("Z_UUID", "VARCHAR(255)"), ("Z_PLIST", "BLOB")]),
        ]
        for table in tables.values.sorted(by: { $0.name < $1.name }) {
            expected.append(
                (
                    table.name,
                    [("Z_PK", "INTEGER"), ("Z_ENT", "INTEGER"), ("Z_OPT", "INTEGER")] + Self.inTypeOrder(table)
                ))
        }
        for join in joinTables.values.sorted(by: { $0.name < $1.name }) {
            let orders = [join.ownerOrderColumn, join.inverseOrderColumn].compactMap { $0 }
            expected.append((join.name, (join.keyColumns + orders).map { ($0, "INTEGER") }))
        }
        return expected
    }

    /// How the file's tables differ from this schema, one phrase each; empty when they match.
    ///
    /// The metadata says which model wrote the store, not that its tables are still that model's: a schema edited
    /// by hand would otherwise fail later, in a fetch or a save, far from the cause. Only the schema is read,
    /// never the data, so an open stays flat in store size.
    /// - Parameter strict: also report a column of another declared type, or one the model does not have (a store
    ///   ObjectStack wrote, whose every column it knows); a store Core Data wrote is checked for what the model
    ///   needs only.
    func differences(in file: SQLiteStoreFile, strict: Bool) -> [String] {
        var differences: [String] = []
        // "TABLE.COLUMN" -> "Entity.property", so that a message names what the model calls it.
        var propertyNames: [String: String] = [:]
        for table in tables.values {
            for entity in table.root.selfAndDescendants {
                for attribute in entity.declaredAttributes where attribute.storedIndex != nil {
                    propertyNames[table.name + "." + columnName(attribute)] = "\(entity.name).\(attribute.name)"
                }
                for relationship in entity.declaredRelationships where relationship.storedIndex != nil {
                    propertyNames[table.name + "." + columnName(relationship)] = "\(entity.name).\(relationship.name)"
                }
            }
        }
        for table in expectedTables {
            guard let actual = file.columns[table.name], !actual.isEmpty else {
                differences.append("table \(table.name) is missing")
                continue
            }
            let types = Dictionary(actual.map { ($0.name, $0.type) }, uniquingKeysWith: { first, _ in first })
            for column in table.columns {
                guard let type = types[column.name] else {
                    let property = propertyNames[table.name + "." + column.name].map { " (\($0))" } ?? ""
                    differences.append("column \(table.name).\(column.name)\(property) is missing")
                    continue
                }
                if strict, type != column.type {
                    differences.append("column \(table.name).\(column.name) is \(type), expected \(column.type)")
                }
            }
            guard strict else { continue }
            let expectedNames = Set(table.columns.map(\.name))
            for column in actual where !expectedNames.contains(column.name) {
                differences.append("column \(table.name).\(column.name) is not in the model")
            }
        }
        let fileCodes = Set(file.entityRows.values.map(\.code))
        for (name, code) in codes.sorted(by: { $0.value < $1.value }) where !fileCodes.contains(code) {
            differences.append("entity \(name) has no row in Z_PRIMARYKEY")
        }
        return differences
    }
}
