import Foundation

/// One aggregate of a fetch (`count:`, `sum:`, `average:`, `min:`, `max:`) computed value by value: the one
/// definition every store uses (SQLite calls it from its `os_sum`/`os_avg` SQL functions), so the stores agree.
///
/// - `count:` counts the values that are not nil (SQL's `COUNT(column)`, what Core Data compiles it to).
/// - `sum:` skips nils: over integers and booleans an integer, exact until it overflows 64 bits, then floating
///   point (as arithmetic in predicates); over doubles and floats a double; over decimals an exact decimal. The
///   sum of no value is 0 of that type (SQL's `TOTAL`, Core Data's choice, rather than `SUM`'s NULL).
/// - `average:` skips nils: a double (a decimal over decimals); nil over no value.
/// - `min:`/`max:` skip nils and order values as sort keys do (`ValueComparison.sortOrder`); nil over no value.
///
/// Floating-point sums depend on the order values are added in, which differs between stores (a group's rows
/// are read in index or hash order): they agree to about 1e-15 relative, not bit for bit.
public struct AggregateAccumulator: Sendable {
    /// How `sum:` and `average:` add the values.
    public enum Arithmetic: Sendable {
        /// Integers and booleans, in 64-bit integers.
        case integer
        /// Doubles and floats.
        case floatingPoint
        /// Decimals, exactly.
        case decimal

        /// The arithmetic for values of an attribute type; nil for a type that is not a number.
        public init?(_ type: AttributeType) {
            switch type {
            case .integer16, .integer32, .integer64, .boolean: self = .integer
            case .double, .float: self = .floatingPoint
            case .decimal: self = .decimal
            default: return nil
            }
        }
    }

    /// The function computed.
    public let function: AggregateFunction
    private let arithmetic: Arithmetic
    private var count: Int64 = 0
    private var integerSum: Int64 = 0
    private var overflowed = false
    private var doubleSum: Double = 0
    private var decimalSum = Decimal(0)
    private var extreme = StoreValue.null

    /// Starts an aggregate of values of `argumentType` (nil for a to-one relationship, which only `count:` takes).
    public init(_ function: AggregateFunction, argumentType: AttributeType?) {
        self.function = function
        arithmetic = argumentType.flatMap(Arithmetic.init) ?? .floatingPoint
    }

    /// Starts a `sum:` or `average:` with the given arithmetic.
    public init(_ function: AggregateFunction, arithmetic: Arithmetic) {
        self.function = function
        self.arithmetic = arithmetic
    }

    /// The type of the result over values of `argumentType`, when none is asked for.
    public static func resultType(of function: AggregateFunction, argumentType: AttributeType?) -> AttributeType? {
        switch function {
        case .count: return .integer64
        case .sum:
            switch argumentType.flatMap(Arithmetic.init) {
            case .integer?: return .integer64
            case .decimal?: return .decimal
            default: return .double
            }
        case .avg: return argumentType == .decimal ? .decimal : .double
        case .min, .max: return argumentType
        }
    }

    /// Adds one value (nil is skipped).
    public mutating func add(_ value: StoreValue) {
        if value.isNull { return }
        count += 1
        switch function {
        case .count:
            return
        case .min, .max:
            if extreme.isNull {
                extreme = value
            } else {
                let order = ValueComparison.sortOrder(value, extreme, caseInsensitive: false)
                if function == .min ? order == .orderedAscending : order == .orderedDescending { extreme = value }
            }
        case .sum, .avg:
            switch arithmetic {
            case .integer:
                let number: Int64
                switch value {
                case .integer(let v): number = v
                case .boolean(let v): number = v ? 1 : 0
                default:
                    doubleSum += value.numericValue ?? 0
                    overflowed = true
                    return
                }
                if overflowed {
                    doubleSum += Double(number)
                } else {
                    let (sum, overflow) = integerSum.addingReportingOverflow(number)
                    if overflow {
                        overflowed = true
                        doubleSum = Double(integerSum) + Double(number)
                    } else {
                        integerSum = sum
                    }
                }
            case .floatingPoint:
                doubleSum += value.numericValue ?? 0
            case .decimal:
                if case .decimal(let v) = value {
                    decimalSum += v
                } else if let number = value.numericValue {
                    decimalSum += Decimal(number)
                }
            }
        }
    }

    /// The aggregate of the values added so far.
    public var result: StoreValue {
        switch function {
        case .count:
            return .integer(count)
        case .min, .max:
            return extreme
        case .sum:
            switch arithmetic {
            case .integer: return overflowed ? .double(doubleSum) : .integer(integerSum)
            case .floatingPoint: return .double(doubleSum)
            case .decimal: return .decimal(decimalSum)
            }
        case .avg:
            guard count > 0 else { return .null }
            switch arithmetic {
            case .integer: return .double((overflowed ? doubleSum : Double(integerSum)) / Double(count))
            case .floatingPoint: return .double(doubleSum / Double(count))
            case .decimal: return .decimal(decimalSum / Decimal(count))
            }
        }
    }
}
