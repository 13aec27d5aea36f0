import CSQLite
import Foundation
import ObjectStack

/// Reading and writing `StoreValue`s in the column types the schema gives each attribute type.
///
/// Integers and booleans are INTEGER; doubles, floats and dates (seconds since the reference date) REAL;
/// decimals their canonical text (exact round trip); strings and URIs TEXT; data, transformables and
/// UUIDs (16 bytes) BLOB.
extension SQLiteStatement {
    /// Binds a value as an attribute of `type` stores it.
    @inline(__always)
    func bind(_ value: StoreValue, at index: Int32) {
        switch value {
        case .null: sqlite3_bind_null(handle, index)
        case .integer(let v): sqlite3_bind_int64(handle, index, v)
        case .double(let v): sqlite3_bind_double(handle, index, v)
        case .boolean(let v): sqlite3_bind_int64(handle, index, v ? 1 : 0)
        case .string(let v): bindText(v, at: index)
        case .decimal(let v): bindText(SQLiteStatement.text(of: v), at: index)
        case .date(let v): sqlite3_bind_double(handle, index, v.timeIntervalSinceReferenceDate)
        case .data(let v): bindBlob(v, at: index)
        case .uuid(let v): bindBlob(SQLiteStatement.bytes(of: v), at: index)
        case .uri(let v): bindText(v.absoluteString, at: index)
        case .objectID(let id): sqlite3_bind_int64(handle, index, id.key)
        }
    }

    /// A decimal's canonical text: what the store writes and `Decimal(string:)` reads back exactly.
    static func text(of decimal: Decimal) -> String { decimal.description }

    static func bytes(of uuid: UUID) -> Data {
        withUnsafeBytes(of: uuid.uuid) { Data($0) }
    }

    /// Reads a column holding an attribute of `type`.
    @inline(__always)
    func value(_ column: Int32, as type: AttributeType) -> StoreValue {
        if sqlite3_column_type(handle, column) == SQLITE_NULL { return .null }
        switch type {
        case .integer16, .integer32, .integer64: return .integer(int(column))
        case .boolean: return .boolean(int(column) != 0)
        case .double, .float: return .double(double(column))
        case .string: return .string(text(column))
        case .decimal: return SQLiteFunctions.decimal(text(column)).map(StoreValue.decimal) ?? .null
        case .date: return .date(Date(timeIntervalSinceReferenceDate: double(column)))
        case .binaryData, .transformable: return .data(blob(column))
        case .uuid:
            let data = blob(column)
            guard data.count == 16 else { return .null }
            let uuid = data.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }
            return .uuid(UUID(uuid: uuid))
        case .uri: return URL(string: text(column)).map(StoreValue.uri) ?? .null
        }
    }

    /// Converts a value to the SQL value it is bound as.
    static func sqlValue(_ value: StoreValue) -> SQLValue {
        switch value {
        case .null: return .null
        case .integer(let v): return .integer(v)
        case .double(let v): return .double(v)
        case .boolean(let v): return .integer(v ? 1 : 0)
        case .string(let v): return .text(v)
        case .decimal(let v): return .text(text(of: v))
        case .date(let v): return .double(v.timeIntervalSinceReferenceDate)
        case .data(let v): return .blob(v)
        case .uuid(let v): return .blob(bytes(of: v))
        case .uri(let v): return .text(v.absoluteString)
        case .objectID(let id): return .integer(id.key)
        }
    }
}
