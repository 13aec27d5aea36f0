import Foundation

extension SQLiteSchema {
    /// The tables and columns a store of this schema has, with their declared SQL types.
    var expectedTables: [(name: String, columns: [(name: String, type: String)])] {
        var expected: [(name: String, columns: [(name: String, type: String)])] = [
            ("Z_METADATA", [("key", "TEXT"), ("value", "TEXT")]),
            ("Z_PRIMARYKEY", [("root", "TEXT"), ("max", "INTEGER")]),
        ]
        for table in tables.values.sorted(by: { $0.name < $1.name }) {
            expected.append(
                (
                    table.name,
                    [("Z_PK", "INTEGER"), ("Z_ENT", "INTEGER"), ("Z_OPT", "INTEGER")]
                        + table.columns.map { ($0.name, $0.sqlType) }
                ))
        }
        for join in joinTables.values.sorted(by: { $0.name < $1.name }) {
            expected.append((join.name, [("src", "INTEGER"), ("dst", "INTEGER")]))
        }
        return expected
    }

    /// How the file's tables differ from this schema, one phrase each; empty when they match.
    ///
    /// The metadata's version hashes say which model wrote the store, not that its tables are still that
    /// model's: a schema edited by hand would otherwise fail later, in a fetch or a save, far from the cause.
    /// Reads only the schema (a few rows per table), never the data, so an open stays flat in store size.
    func differences(in db: SQLiteConnection) throws -> [String] {
        var differences: [String] = []
        for table in expectedTables {
            let literal = "'" + table.name.replacingOccurrences(of: "'", with: "''") + "'"
            let actual = try db.rows("SELECT name, type FROM pragma_table_info(\(literal))")
            guard !actual.isEmpty else {
                differences.append("table \(table.name) is missing")
                continue
            }
            let types = Dictionary(actual.map { ($0[0], $0[1].uppercased()) }, uniquingKeysWith: { first, _ in first })
            for column in table.columns {
                guard let type = types[column.name] else {
                    differences.append("column \(table.name).\(column.name) is missing")
                    continue
                }
                if type != column.type {
                    differences.append("column \(table.name).\(column.name) is \(type), expected \(column.type)")
                }
            }
            let expectedNames = Set(table.columns.map(\.name))
            for row in actual where !expectedNames.contains(row[0]) {
                differences.append("column \(table.name).\(row[0]) is not in the model")
            }
        }
        return differences
    }
}
