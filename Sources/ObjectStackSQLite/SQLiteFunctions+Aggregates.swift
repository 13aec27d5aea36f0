import CSQLite
import Foundation
import ObjectStack

/// The aggregate SQL functions of aggregate fetches: `os_sum(value, arithmetic)` and `os_avg(value, arithmetic)`
/// run `AggregateAccumulator`, the definition the other stores use, so sums overflow to floating point,
/// decimals (stored as REAL, read back as the decimals they were saved as) add as decimals, and the sum of no value is 0, on SQLite as elsewhere. `arithmetic` is
/// an `Arithmetic` code: 0 integers, 1 floating point, 2 decimals. `COUNT`, `MIN` and `MAX` are SQLite's own,
/// whose semantics are already the same.
extension SQLiteFunctions {
    /// The `arithmetic` argument's codes.
    enum Arithmetic: Int32 {
        case integer = 0, floatingPoint = 1, decimal = 2

        init(_ type: AttributeType?) {
            switch type.flatMap(AggregateAccumulator.Arithmetic.init) {
            case .integer?: self = .integer
            case .decimal?: self = .decimal
            default: self = .floatingPoint
            }
        }

        var accumulatorArithmetic: AggregateAccumulator.Arithmetic {
            switch self {
            case .integer: return .integer
            case .floatingPoint: return .floatingPoint
            case .decimal: return .decimal
            }
        }
    }

    static func registerAggregates(on db: OpaquePointer) -> Int32 {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC
        // The function is told apart by its user data: 1 sum, 2 average.
        var code = sqlite3_create_function_v2(
            db, "os_sum", 2, flags, UnsafeMutableRawPointer(bitPattern: 1), nil, aggregateStep, aggregateFinal, nil)
        if code == SQLITE_OK {
            code = sqlite3_create_function_v2(
                db, "os_avg", 2, flags, UnsafeMutableRawPointer(bitPattern: 2), nil, aggregateStep, aggregateFinal,
                nil)
        }
        return code
    }

    /// The running aggregate of one group, kept alive between steps through the aggregate context.
    final class AggregateBox {
        var accumulator: AggregateAccumulator

        init(_ accumulator: AggregateAccumulator) {
            self.accumulator = accumulator
        }
    }

    static func function(of context: OpaquePointer?) -> AggregateFunction {
        Int(bitPattern: sqlite3_user_data(context)) == 2 ? .avg : .sum
    }

    /// A column value as a `StoreValue` for the accumulator: a decimal column's value (REAL, or text in a file of
    /// another writer) read as a decimal.
    static func storeValue(_ value: OpaquePointer?, isDecimal: Bool) -> StoreValue {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER:
            let integer = sqlite3_value_int64(value)
            return isDecimal ? .decimal(Decimal(integer)) : .integer(integer)
        case SQLITE_FLOAT:
            let double = sqlite3_value_double(value)
            if isDecimal { return SQLiteStatement.decimal(fromStored: double).map(StoreValue.decimal) ?? .null }
            return .double(double)
        case SQLITE_TEXT: return text(value).flatMap(decimal).map(StoreValue.decimal) ?? .null
        default: return .null
        }
    }

    static func setResult(_ context: OpaquePointer?, _ value: StoreValue) {
        switch value {
        case .integer(let v): sqlite3_result_int64(context, v)
        case .double(let v): sqlite3_result_double(context, v)
        case .decimal(let v):
            var text = v.description
            text.withUTF8 { buffer in
                buffer.withMemoryRebound(to: CChar.self) {
                    sqlite3_result_text(context, $0.baseAddress, Int32($0.count), SQLiteConnection.transient)
                }
            }
        default: sqlite3_result_null(context)
        }
    }
}

private let aggregateStep: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, _, arguments in
    guard let arguments,
        let slot = sqlite3_aggregate_context(context, Int32(MemoryLayout<UnsafeMutableRawPointer?>.size))
    else { return }
    let pointer = slot.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
    let box: SQLiteFunctions.AggregateBox
    if let existing = pointer.pointee {
        box = Unmanaged<SQLiteFunctions.AggregateBox>.fromOpaque(existing).takeUnretainedValue()
    } else {
        let arithmetic = SQLiteFunctions.Arithmetic(rawValue: sqlite3_value_int(arguments[1])) ?? .floatingPoint
        box = SQLiteFunctions.AggregateBox(
            AggregateAccumulator(SQLiteFunctions.function(of: context), arithmetic: arithmetic.accumulatorArithmetic))
        // Released by the final call, which SQLite makes for every aggregate context it allocated.
        pointer.pointee = Unmanaged.passRetained(box).toOpaque()
    }
    let isDecimal = sqlite3_value_int(arguments[1]) == SQLiteFunctions.Arithmetic.decimal.rawValue
    box.accumulator.add(SQLiteFunctions.storeValue(arguments[0], isDecimal: isDecimal))
}

private let aggregateFinal: @convention(c) (OpaquePointer?) -> Void = { context in
    let slot = sqlite3_aggregate_context(context, 0)
    guard let existing = slot?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self).pointee else {
        // No row in the group: the sum of no value is 0 (read as the column's type), the average nil.
        let empty = AggregateAccumulator(SQLiteFunctions.function(of: context), arithmetic: .integer)
        return SQLiteFunctions.setResult(context, empty.result)
    }
    let box = Unmanaged<SQLiteFunctions.AggregateBox>.fromOpaque(existing).takeRetainedValue()
    SQLiteFunctions.setResult(context, box.accumulator.result)
}
