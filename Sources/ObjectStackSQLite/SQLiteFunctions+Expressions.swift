import CSQLite
import Foundation
import ObjectStack

/// The SQL functions a batch update's compiled expressions call, so SQLite computes what the other stores compute:
/// - `os_expr(name, kind, value, kind, value…)`: `ExpressionFunction(name:)`'s `apply(_:now:)` of the values, each
///   read as the kind before it (`SQLitePredicateCompiler.Kind`'s code: a REAL is a date for kind 4, a number for 1);
///   not deterministic (`random`).
/// - `os_store(value, kind, type, optional, assignment, Z_PK, Z_ENT)`: the value as an attribute of `type`
///   (`AttributeType`'s raw value) stores it, through `PropertyExpression.storedValue(_:as:)`; a value the attribute
///   cannot hold fails the statement, and the failure (which assignment, which row, which value) is kept for the
///   thread that runs it, to be thrown as the same error the row-by-row path throws.
extension SQLiteFunctions {
    /// A value `os_store` refused: the assignment's position, the row and the value computed.
    struct StoreFailure {
        let assignment: Int
        let primaryKey: Int64
        let entityCode: Int64
        let value: StoreValue
    }

    /// The failure `os_store` met on each thread, until the statement's runner takes it.
    private static let storeFailures = LockedValue<[UInt: StoreFailure]>([:])

    static func registerExpressionFunctions(on db: OpaquePointer) -> Int32 {
        var code = sqlite3_create_function_v2(db, "os_expr", -1, SQLITE_UTF8, nil, expressionFunction, nil, nil, nil)
        if code == SQLITE_OK {
            code = sqlite3_create_function_v2(
                db, "os_store", 7, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, storeFunction, nil, nil, nil)
        }
        return code
    }

    /// Takes the failure `os_store` left for the calling thread, if any.
    static func takeStoreFailure() -> StoreFailure? {
        storeFailures.withLock { $0.removeValue(forKey: threadID) }
    }

    fileprivate static func record(_ failure: StoreFailure) {
        storeFailures.withLock { $0[threadID] = failure }
    }

    private static var threadID: UInt {
        #if canImport(Glibc)
            UInt(pthread_self())
        #else
            UInt(bitPattern: pthread_self())
        #endif
    }

    /// The code a kind is passed to `os_expr` and `os_store` as.
    static func code(of kind: SQLitePredicateCompiler.Kind) -> Int64 {
        switch kind {
        case .null: return 0
        // Decimals are numbers here: the store keeps them as REAL (code 2 is no longer used).
        case .number: return 1
        case .string: return 3
        case .date: return 4
        case .data: return 5
        case .uuid: return 6
        case .uri: return 7
        case .object: return 8
        }
    }

    /// An SQL argument read as the store value of the kind coded `code`.
    fileprivate static func storeValue(_ value: OpaquePointer?, kind code: Int64) -> StoreValue {
        let type = sqlite3_value_type(value)
        if type == SQLITE_NULL { return .null }
        switch code {
        case 1, 8:
            switch type {
            case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
            case SQLITE_FLOAT: return .double(sqlite3_value_double(value))
            default: return .null
            }
        case 3: return text(value).map(StoreValue.string) ?? .null
        case 4:
            guard type == SQLITE_FLOAT || type == SQLITE_INTEGER else { return .null }
            return .date(Date(timeIntervalSinceReferenceDate: sqlite3_value_double(value)))
        case 5, 6:
            let count = Int(sqlite3_value_bytes(value))
            let data = sqlite3_value_blob(value).map { Data(bytes: $0, count: count) } ?? Data()
            guard code == 6 else { return .data(data) }
            guard data.count == 16 else { return .null }
            return .uuid(UUID(uuid: data.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }))
        case 7: return text(value).flatMap { URL(string: $0) }.map(StoreValue.uri) ?? .null
        default: return .null
        }
    }

    /// Sets a function's result to a store value, as the store binds it.
    fileprivate static func result(_ context: OpaquePointer?, _ value: StoreValue) {
        switch SQLiteStatement.sqlValue(value) {
        case .null: sqlite3_result_null(context)
        case .integer(let v): sqlite3_result_int64(context, v)
        case .double(let v): sqlite3_result_double(context, v)
        case .text(let text):
            var text = text
            text.withUTF8 { buffer in
                let base = UnsafeRawPointer(buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!)
                sqlite3_result_text(
                    context, base.assumingMemoryBound(to: CChar.self), Int32(buffer.count), SQLiteConnection.transient)
            }
        case .blob(let data):
            data.withUnsafeBytes { buffer in
                sqlite3_result_blob(
                    context, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count),
                    SQLiteConnection.transient)
            }
        }
    }
}

private let expressionFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void =
    { context, count, arguments in
        guard let arguments, count >= 1, let name = SQLiteFunctions.text(arguments[0]),
            let function = ExpressionFunction(name: name)
        else { return sqlite3_result_null(context) }
        var values: [StoreValue] = []
        var index = 1
        while index + 1 < Int(count) {
            let kind = sqlite3_value_int64(arguments[index])
            values.append(SQLiteFunctions.storeValue(arguments[index + 1], kind: kind))
            index += 2
        }
        // `now()` is compiled as a bound constant, never called here: the date passed is not used.
        SQLiteFunctions.result(context, function.apply(values, now: Date()))
    }

private let storeFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, _, arguments in
    guard let arguments, let typeName = SQLiteFunctions.text(arguments[2]),
        let type = AttributeType(rawValue: typeName)
    else { return sqlite3_result_null(context) }
    let value = SQLiteFunctions.storeValue(arguments[0], kind: sqlite3_value_int64(arguments[1]))
    if let stored = PropertyExpression.storedValue(value, as: type),
        !stored.isNull || sqlite3_value_int64(arguments[3]) != 0
    {
        return SQLiteFunctions.result(context, stored)
    }
    SQLiteFunctions.record(
        .init(
            assignment: Int(sqlite3_value_int64(arguments[4])), primaryKey: sqlite3_value_int64(arguments[5]),
            entityCode: sqlite3_value_int64(arguments[6]), value: value))
    sqlite3_result_error(context, "a computed value does not fit its attribute", -1)
}
