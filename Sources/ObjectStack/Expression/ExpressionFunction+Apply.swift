import Foundation

extension ExpressionFunction {
    // MARK: - Computing

    /// The function's value for its arguments' values: the one definition every store computes it by.
    ///
    /// For example:
    /// ```swift
    /// ExpressionFunction(name: "add:to:")!.apply([.integer(41), .integer(1)], now: Date())   // .integer(42)
    /// ```
    /// - Parameters:
    ///   - arguments: the arguments' values; an aggregate's values each (a collection's values spread out).
    ///   - now: the date `now()` gives: the request's, one for all its rows.
    /// - Returns: the value; `.null` for a nil or unfit argument, or a result that is not a number.
    public func apply(_ arguments: [StoreValue], now: Date) -> StoreValue {
        if let op = arithmeticOperator {
            guard arguments.count == 2 else { return .null }
            return ValueComparison.arithmetic(op, arguments[0], arguments[1])
        }
        if isAggregate { return aggregate(arguments) }
        switch kind {
        case .now: return .date(now)
        case .random: return .integer(Int64.random(in: 0...Int64.max))
        default: break
        }
        guard let first = arguments.first else { return .null }
        switch kind {
        case .lowercase: return Self.mapString(first) { $0.lowercased() }
        case .uppercase: return Self.mapString(first) { $0.uppercased() }
        case .canonical:
            return Self.mapString(first) {
                $0.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).lowercased()
            }
        case .noindex: return first
        case .randomBelow:
            guard let bound = Self.integer(first), bound > 0 else { return .null }
            return .integer(Int64.random(in: 0..<bound))
        case .abs, .floor, .ceiling, .trunc: return rounding(first)
        case .sqrt, .log, .ln, .exp: return Self.real(first, kind)
        case .modulus: return Self.modulus(first, arguments.count > 1 ? arguments[1] : .null)
        case .bitwiseAnd, .bitwiseOr, .bitwiseXor, .leftShift, .rightShift, .onesComplement:
            return bitwise(arguments)
        default: return .null
        }
    }

    private static func mapString(_ value: StoreValue, _ transform: (String) -> String) -> StoreValue {
        guard case .string(let text) = value else { return .null }
        return .string(transform(text))
    }

    /// A number as a 64-bit integer, as NSExpression treats the bitwise functions' numbers ("as NSInteger"): an
    /// integer, a boolean, or a double with no fraction that fits.
    private static func integer(_ value: StoreValue) -> Int64? {
        switch value {
        case .integer(let v): return v
        case .boolean(let v): return v ? 1 : 0
        case .double(let v): return v.rounded(.towardZero) == v ? Int64(exactly: v) : nil
        case .decimal: return value.numericValue.flatMap { $0.rounded(.towardZero) == $0 ? Int64(exactly: $0) : nil }
        default: return nil
        }
    }

    /// `abs:`, `floor:`, `ceiling:`, `trunc:`: an integer stays an integer (one past `Int64.max` turns floating
    /// point), anything else numeric is rounded in floating point.
    private func rounding(_ value: StoreValue) -> StoreValue {
        if case .integer(let v) = value {
            guard kind == .abs, v < 0 else { return value }
            return v == .min ? .double(-Double(v)) : .integer(-v)
        }
        guard let x = value.numericValue else { return .null }
        switch kind {
        case .abs: return .double(Swift.abs(x))
        case .floor: return .double(x.rounded(.down))
        case .ceiling: return .double(x.rounded(.up))
        default: return .double(x.rounded(.towardZero))
        }
    }

    /// `sqrt:`, `log:`, `ln:`, `exp:` in floating point; nil where the result is not a number.
    private static func real(_ value: StoreValue, _ kind: Name) -> StoreValue {
        guard let x = value.numericValue else { return .null }
        let result: Double
        switch kind {
        case .sqrt: result = x.squareRoot()
        case .log: result = Foundation.log10(x)
        case .ln: result = Foundation.log(x)
        default: result = Foundation.exp(x)
        }
        return result.isNaN ? .null : .double(result)
    }

    /// `modulus:by:`: the integer remainder of two integers (nil by zero), else `fmod` in floating point.
    private static func modulus(_ a: StoreValue, _ b: StoreValue) -> StoreValue {
        if case .integer(let x) = a, case .integer(let y) = b {
            guard y != 0 else { return .null }
            return .integer(x.remainderReportingOverflow(dividingBy: y).partialValue)
        }
        guard let x = a.numericValue, let y = b.numericValue, y != 0 else { return .null }
        return .double(Foundation.fmod(x, y))
    }

    /// The bitwise functions on 64-bit integers; a shift by 64 or more, or a negative one, gives nil.
    private func bitwise(_ arguments: [StoreValue]) -> StoreValue {
        guard let x = Self.integer(arguments[0]) else { return .null }
        if kind == .onesComplement { return .integer(~x) }
        guard arguments.count > 1, let y = Self.integer(arguments[1]) else { return .null }
        switch kind {
        case .bitwiseAnd: return .integer(x & y)
        case .bitwiseOr: return .integer(x | y)
        case .bitwiseXor: return .integer(x ^ y)
        case .leftShift: return (0..<64).contains(y) ? .integer(x << y) : .null
        default: return (0..<64).contains(y) ? .integer(x >> y) : .null
        }
    }

    /// `sum:`, `count:`, `min:`, `max:`, `average:` as the collection operators compute them
    /// (`ValueComparison.aggregate`); `median:` and `stddev:` (population) of the numbers, nil when there are none.
    private func aggregate(_ values: [StoreValue]) -> StoreValue {
        switch kind {
        case .sum: return ValueComparison.aggregate(.sum, values)
        case .count: return ValueComparison.aggregate(.count, values)
        case .min: return ValueComparison.aggregate(.min, values)
        case .max: return ValueComparison.aggregate(.max, values)
        case .average: return ValueComparison.aggregate(.avg, values)
        case .median:
            let numbers = values.compactMap(\.numericValue).sorted()
            guard !numbers.isEmpty else { return .null }
            let middle = numbers.count / 2
            return .double(
                numbers.count % 2 == 1 ? numbers[middle] : (numbers[middle - 1] + numbers[middle]) / 2)
        case .stddev:
            let numbers = values.compactMap(\.numericValue)
            guard !numbers.isEmpty else { return .null }
            let mean = numbers.reduce(0, +) / Double(numbers.count)
            let variance = numbers.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(numbers.count)
            return .double(variance.squareRoot())
        default: return .null
        }
    }
}
