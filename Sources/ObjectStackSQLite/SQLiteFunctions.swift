import CSQLite
import Foundation
import ObjectStack

/// The SQL functions and collation the predicate compiler relies on, where SQLite lacks the semantics.
///
/// Each calls the same code as the in-memory evaluator (`ValueComparison`), so a predicate selects the same
/// rows on every store:
/// - `os_fold(text, options)`: `ValueComparison.fold` (`[c]`, `[d]`, `[cd]`; options as `PredicateOptions`'
///   raw value).
/// - `os_str(operator, text, pattern, options)`: BEGINSWITH (1), ENDSWITH (2), CONTAINS (3), LIKE (4),
///   MATCHES (5, ICU's whole-string match through `NSRegularExpression`) and "is a substring of" (6, `IN`
///   with a string); 0 or 1, and 0 when either side is not text.
/// - `os_pow(base, exponent)`: `**`, as `ValueComparison.arithmetic(.power, …)` computes it (NULL for nil or
///   a result that is not a number).
/// - aggregates `os_sum(value, arithmetic)` and `os_avg(value, arithmetic)`: `AggregateAccumulator`'s `sum:`
///   and `average:` (see `SQLiteFunctions+Aggregates.swift`).
enum SQLiteFunctions {
    enum StringOperator: Int32 {
        case beginsWith = 1, endsWith, contains, like, matches, substringOf
    }

    static func register(on db: OpaquePointer) throws {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC
        var code = sqlite3_create_function_v2(db, "os_fold", 2, flags, nil, foldFunction, nil, nil, nil)
        if code == SQLITE_OK {
            code = sqlite3_create_function_v2(db, "os_str", 4, flags, nil, stringFunction, nil, nil, nil)
        }
        if code == SQLITE_OK {
            code = sqlite3_create_function_v2(db, "os_pow", 2, flags, nil, powerFunction, nil, nil, nil)
        }
        if code == SQLITE_OK { code = registerAggregates(on: db) }
        // The functions the derived-attribute triggers of a store Core Data wrote call (`Z_DA_…`): Core Data
        // registers them to learn which objects a trigger changed. Without functions of these names every write
        // the triggers fire on fails ("no such function"); here they need do nothing, since the context computes
        // derived values itself and reads them back.
        for name in [
            "NSCoreDataDATriggerUpdatedAffectedObjectValue", "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue",
        ]
        where code == SQLITE_OK {
            code = sqlite3_create_function_v2(db, name, -1, SQLITE_UTF8, nil, nullFunction, nil, nil, nil)
        }
        if code == SQLITE_OK { code = registerExpressionFunctions(on: db) }
        guard code == SQLITE_OK else {
            throw StoreError(
                code: .ioFailure, message: "cannot register SQL functions: \(String(cString: sqlite3_errmsg(db)))",
                nativeCode: code)
        }
    }

    static func text(_ value: OpaquePointer?) -> String? {
        guard sqlite3_value_type(value) == SQLITE_TEXT, let pointer = sqlite3_value_text(value) else { return nil }
        let count = Int(sqlite3_value_bytes(value))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    static func options(_ value: OpaquePointer?) -> PredicateOptions {
        PredicateOptions(rawValue: UInt8(truncatingIfNeeded: sqlite3_value_int(value)))
    }

    /// Decimal text parsed as `Decimal`, the way the store writes it.
    static func decimal(_ text: String) -> Decimal? {
        Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
    }

    /// The string operators, exactly as `PredicateEvaluator` applies them.
    static func evaluate(_ op: StringOperator, _ text: String, _ pattern: String, _ options: PredicateOptions) -> Bool {
        switch op {
        case .beginsWith: return ValueComparison.stringOperator(.beginsWith, text, pattern, options, regex: regex)
        case .endsWith: return ValueComparison.stringOperator(.endsWith, text, pattern, options, regex: regex)
        case .contains: return ValueComparison.stringOperator(.contains, text, pattern, options, regex: regex)
        case .like: return ValueComparison.stringOperator(.like, text, pattern, options, regex: regex)
        case .matches: return ValueComparison.stringOperator(.matches, text, pattern, options, regex: regex)
        // `text IN pattern`: the left side is a substring of the right.
        case .substringOf: return ValueComparison.stringOperator(.contains, pattern, text, options, regex: regex)
        }
    }

    private struct RegexKey: Hashable {
        let pattern: String
        let options: UInt8
    }

    /// Compiled expressions by pattern: a statement calls MATCHES once per row with the same pattern.
    private static let regexCache = LockedValue<[RegexKey: NSRegularExpression]>([:])

    /// The whole-string expression `PredicateEvaluator` uses for MATCHES (`ValueComparison.matchesExpression`).
    static func regex(_ pattern: String, _ options: PredicateOptions) -> NSRegularExpression? {
        let key = RegexKey(pattern: pattern, options: options.rawValue)
        if let cached = regexCache.withLock({ $0[key] }) { return cached }
        guard let regex = try? ValueComparison.matchesExpression(pattern, options) else { return nil }
        regexCache.withLock { cache in
            if cache.count > 256 { cache.removeAll() }
            cache[key] = regex
        }
        return regex
    }
}

private func resultText(_ context: OpaquePointer?, _ text: String) {
    var text = text
    text.withUTF8 { buffer in
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return sqlite3_result_text(context, "", 0, nil) }
        base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
            sqlite3_result_text(context, $0, Int32(buffer.count), SQLiteConnection.transient)
        }
    }
}

/// A function that returns NULL whatever its arguments.
private let nullFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, _, _ in sqlite3_result_null(context)
}

private let foldFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, _, arguments in
    guard let arguments, let text = SQLiteFunctions.text(arguments[0]) else {
        sqlite3_result_null(context)
        return
    }
    resultText(context, ValueComparison.fold(text, SQLiteFunctions.options(arguments[1])))
}

private let stringFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, _, arguments in
    guard let arguments, let op = SQLiteFunctions.StringOperator(rawValue: sqlite3_value_int(arguments[0])),
        let text = SQLiteFunctions.text(arguments[1]), let pattern = SQLiteFunctions.text(arguments[2])
    else {
        sqlite3_result_int(context, 0)
        return
    }
    let hit = SQLiteFunctions.evaluate(op, text, pattern, SQLiteFunctions.options(arguments[3]))
    sqlite3_result_int(context, hit ? 1 : 0)
}

private let powerFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, _, arguments in
    func number(_ value: OpaquePointer?) -> StoreValue {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: return .double(sqlite3_value_double(value))
        default: return .null
        }
    }
    guard let arguments,
        case .double(let result) = ValueComparison.arithmetic(.power, number(arguments[0]), number(arguments[1]))
    else { return sqlite3_result_null(context) }
    sqlite3_result_double(context, result)
}
