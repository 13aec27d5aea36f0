import CSQLite
import Foundation
import ObjectStack

/// Reading and writing `StoreValue`s as Core Data stores them.
///
/// Integers and booleans are INTEGER; doubles and floats REAL; dates seconds since 2001-01-01 UTC (a TIMESTAMP
/// column gives whole seconds back as INTEGER); decimals REAL (DECIMAL, as Core Data stores them: a decimal
/// keeps 15 significant digits, `decimal(fromStored:)`); strings and URIs TEXT; data, transformables and UUIDs
/// (16 bytes) BLOB.
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
        case .decimal(let v): sqlite3_bind_double(handle, index, SQLiteStatement.storedDouble(of: v))
        case .date(let v): sqlite3_bind_double(handle, index, v.timeIntervalSinceReferenceDate)
        case .data(let v): bindBlob(v, at: index)
        case .uuid(let v): bindBlob(SQLiteStatement.bytes(of: v), at: index)
        case .uri(let v): bindText(v.absoluteString, at: index)
        case .objectID(let id): sqlite3_bind_int64(handle, index, id.key)
        }
    }

    /// The REAL a decimal is stored as.
    static func storedDouble(of decimal: Decimal) -> Double {
        // Through the decimal's text: Double's parser rounds correctly, NSDecimalNumber's doubleValue (mantissa times
        // a power of ten) can land a unit in the last place off, and 19.99 would read back as 19.990000000000002.
        Double(decimal.description) ?? NSDecimalNumber(decimal: decimal).doubleValue
    }

    /// The decimal a stored REAL reads as: the shortest decimal that rounds to it, so any decimal of up to 15
    /// significant digits reads back exactly as it was saved (a double holds 15 decimal digits without loss).
    static func decimal(fromStored double: Double) -> Decimal? {
        guard double.isFinite else { return nil }
        return Decimal(string: "\(double)", locale: Locale(identifier: "en_US_POSIX"))
    }

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
        case .decimal:
            // A store of ObjectStack's first layout or another writer may hold a decimal as text.
            if sqlite3_column_type(handle, column) == SQLITE_TEXT {
                return SQLiteFunctions.decimal(text(column)).map(StoreValue.decimal) ?? .null
            }
            return SQLiteStatement.decimal(fromStored: double(column)).map(StoreValue.decimal) ?? .null
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
        case .decimal(let v): return .double(storedDouble(of: v))
        case .date(let v): return .double(v.timeIntervalSinceReferenceDate)
        case .data(let v): return .blob(v)
        case .uuid(let v): return .blob(bytes(of: v))
        case .uri(let v): return .text(v.absoluteString)
        case .objectID(let id): return .integer(id.key)
        }
    }
}
