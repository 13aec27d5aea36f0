import CSQLite
import Foundation
import ObjectStack

/// Turns a result row of one concrete entity (`Z_PK, Z_ENT, Z_OPT`, then every column of its table) into a
/// `RowSnapshot`, with the column positions worked out once per entity rather than once per row.
struct SQLiteRowReader: Sendable {
    enum Field: Sendable {
        case attribute(column: Int32, type: AttributeType)
        /// Binary data that may live outside the row (`allowsExternalBinaryDataStorage`): Core Data tags the
        /// column's bytes (`ExternalBinaryData`).
        case externalBinary(column: Int32, storage: ExternalBinaryData)
        case reference(column: Int32, entityColumn: Int32?, destination: EntityDescription, table: SQLiteSchema.Table)
    }

    let entity: EntityDescription
    let fields: [Field]

    /// The column where a table's own columns start in `SELECT Z_PK, Z_ENT, Z_OPT, …`.
    static let firstColumn: Int32 = 3

    init(entity: EntityDescription, table: SQLiteSchema.Table, schema: SQLiteSchema, storeURL: URL) {
        self.entity = entity
        let external = ExternalBinaryData(storeURL: storeURL)
        let positions = table.storedColumns[entity.name]!
        let entityPositions = table.storedEntityColumns[entity.name]!
        fields = entity.storedProperties.enumerated().map { index, property in
            let column = Self.firstColumn + Int32(positions[index])
            switch property {
            case .attribute(let attribute) where ExternalBinaryData.applies(to: attribute):
                return .externalBinary(column: column, storage: external)
            case .attribute(let attribute):
                return .attribute(column: column, type: attribute.type)
            case .toOne(let relationship):
                return .reference(
                    column: column, entityColumn: entityPositions[index].map { Self.firstColumn + Int32($0) },
                    destination: SQLiteRowReader.concrete(relationship.destinationEntity),
                    table: schema.table(for: relationship.destinationEntity))
            }
        }
    }

    /// The one concrete entity objects of `entity` can be, when there is one.
    static func concrete(_ entity: EntityDescription) -> EntityDescription {
        entity.selfAndDescendants.first { !$0.isAbstract } ?? entity
    }

    /// Packs the current row of `statement` (positioned on a row) into `packer`: numbers and strings are copied
    /// from SQLite's buffers without building a `StoreValue`.
    @inline(__always)
    func pack(_ statement: SQLiteStatement, into packer: RowPacker, storeIdentifier: String) {
        packer.beginRow(fieldCount: fields.count)
        for field in fields {
            switch field {
            case .attribute(let column, let type):
                let handle = statement.handle
                guard sqlite3_column_type(handle, column) != SQLITE_NULL else {
                    packer.appendNull()
                    continue
                }
                switch type {
                case .integer16, .integer32, .integer64: packer.appendInteger(sqlite3_column_int64(handle, column))
                case .double, .float: packer.appendDouble(sqlite3_column_double(handle, column))
                case .boolean: packer.appendBoolean(sqlite3_column_int64(handle, column) != 0)
                case .date:
                    packer.appendDate(timeIntervalSinceReferenceDate: sqlite3_column_double(handle, column))
                case .string:
                    // The text pointer first, then its length: SQLite's documented order for a column's bytes.
                    let text = sqlite3_column_text(handle, column)
                    let count = Int(sqlite3_column_bytes(handle, column))
                    packer.appendString(utf8: UnsafeRawBufferPointer(start: text, count: text == nil ? 0 : count))
                default: packer.append(statement.value(column, as: type))
                }
            case .externalBinary(let column, let storage):
                packer.append(storage.value(statement, column))
            case .reference(let column, let entityColumn, let destination, let table):
                packer.append(
                    Self.reference(
                        statement, column, entityColumn, destination, table, storeIdentifier: storeIdentifier))
            }
        }
        packer.endRow(version: statement.int(2))
    }

    /// Reads the current row of `statement` (positioned on a row).
    @inline(__always)
    func snapshot(_ statement: SQLiteStatement, storeIdentifier: String) -> RowSnapshot {
        var values: [StoreValue] = []
        values.reserveCapacity(fields.count)
        for field in fields {
            switch field {
            case .attribute(let column, let type):
                values.append(statement.value(column, as: type))
            case .externalBinary(let column, let storage):
                values.append(storage.value(statement, column))
            case .reference(let column, let entityColumn, let destination, let table):
                values.append(
                    Self.reference(
                        statement, column, entityColumn, destination, table, storeIdentifier: storeIdentifier))
            }
        }
        return RowSnapshot(values: values, version: statement.int(2))
    }

    /// A to-one column's value: the ID of the row it names (of the entity its entity column gives, for a
    /// destination with sub-entities), or `.null`.
    @inline(__always)
    private static func reference(
        _ statement: SQLiteStatement, _ column: Int32, _ entityColumn: Int32?, _ destination: EntityDescription,
        _ table: SQLiteSchema.Table, storeIdentifier: String
    ) -> StoreValue {
        if statement.isNull(column) { return .null }
        var target = destination
        if let entityColumn, let found = table.entitiesByCode[statement.int(entityColumn)] { target = found }
        return .objectID(
            ManagedObjectID(entity: target, storeIdentifier: storeIdentifier, primaryKey: statement.int(column)))
    }
}
