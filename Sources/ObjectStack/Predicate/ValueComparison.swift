import Foundation

/// How values compare, in predicates and in sorting, the same way on every store.
///
/// - Numbers (integers, doubles, decimals, booleans as 0 and 1) compare by value across types.
/// - Strings compare by Unicode code point (the order of their UTF-8 bytes: SQLite's BINARY collation and
///   LMDB's memcmp order), after folding for `[c]` (case) and `[d]` (diacritics).
/// - `nil` equals only `nil`; an ordering comparison (`<`, `BETWEEN`…) with `nil` is false. In sorting,
///   `nil` comes before every value.
/// - Values of unlike kinds are unequal and unordered (binding rejects most such comparisons).
/// - Arithmetic follows NSExpression and SQLite alike: see `arithmetic(_:_:_:)`.
public enum ValueComparison {
    /// Whether two values are equal under the options.
    public static func equal(_ a: StoreValue, _ b: StoreValue, _ options: PredicateOptions = []) -> Bool {
        switch (a, b) {
        case (.string(let x), .string(let y)):
            return options.isEmpty
                ? x.utf8.elementsEqual(y.utf8) : fold(x, options).utf8.elementsEqual(fold(y, options).utf8)
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        default:
            return order(a, b, options) == .orderedSame
        }
    }

    /// The order of two values, or nil when either is nil or they are of unlike kinds.
    public static func order(_ a: StoreValue, _ b: StoreValue, _ options: PredicateOptions = []) -> ComparisonResult? {
        switch (a, b) {
        case (.integer(let x), .integer(let y)): return compare(x, y)
        case (.decimal(let x), .decimal(let y)): return compare(x, y)
        case (.string(let x), .string(let y)):
            return options.isEmpty ? compareCodePoints(x, y) : compareCodePoints(fold(x, options), fold(y, options))
        case (.date(let x), .date(let y)): return compare(x, y)
        case (.data(let x), .data(let y)): return compareBytes(x, y)
        case (.uuid(let x), .uuid(let y)): return compareCodePoints(x.uuidString, y.uuidString)
        case (.uri(let x), .uri(let y)): return compareCodePoints(x.absoluteString, y.absoluteString)
        case (.objectID(let x), .objectID(let y)): return x == y ? .orderedSame : compareIDs(x, y)
        default:
            guard let x = a.numericValue, let y = b.numericValue else { return nil }
            return compare(x, y)
        }
    }

    /// A total order for sorting: nil first, then by `order`; unlike kinds by kind.
    public static func sortOrder(_ a: StoreValue, _ b: StoreValue, caseInsensitive: Bool) -> ComparisonResult {
        switch (a.isNull, b.isNull) {
        case (true, true): return .orderedSame
        case (true, false): return .orderedAscending
        case (false, true): return .orderedDescending
        default: break
        }
        if let result = order(a, b, caseInsensitive ? .caseInsensitive : []) { return result }
        return compare(kindRank(a), kindRank(b))
    }

    /// The string folded as the options ask: `[c]` case folding, `[d]` diacritics removed.
    public static func fold(_ text: String, _ options: PredicateOptions) -> String {
        let caseless = options.contains(.caseInsensitive)
        let diacriticless = options.contains(.diacriticInsensitive)
        guard caseless || diacriticless else { return text }
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            // ASCII has no diacritics and folds by lowercasing: skip Foundation's slower path.
            return caseless ? text.lowercased() : text
        }
        var foldOptions: String.CompareOptions = []
        if caseless { foldOptions.insert(.caseInsensitive) }
        if diacriticless { foldOptions.insert(.diacriticInsensitive) }
        return text.folding(options: foldOptions, locale: nil)
    }

    /// `BEGINSWITH`, `ENDSWITH`, `CONTAINS` (substring), `LIKE` and `MATCHES` on two strings, under the options;
    /// `regex` compiles (or looks up) a `MATCHES` pattern as `matchesExpression` does. Every store applies string operators
    /// through this one definition.
    public static func stringOperator(
        _ op: PredicateOperator, _ text: String, _ pattern: String, _ options: PredicateOptions,
        regex: (String, PredicateOptions) -> NSRegularExpression?
    ) -> Bool {
        switch op {
        case .beginsWith:
            return fold(text, options).utf8.starts(with: fold(pattern, options).utf8)
        case .endsWith:
            return fold(text, options).utf8.reversed().starts(with: fold(pattern, options).utf8.reversed())
        case .contains, .in:
            // `text IN pattern` is `pattern CONTAINS text`; callers pass them in that order.
            return containsBytes(fold(text, options), fold(pattern, options))
        case .like:
            return like(text, pattern, options)
        case .matches:
            let subject = options.contains(.diacriticInsensitive) ? fold(text, [.diacriticInsensitive]) : text
            guard let compiled = regex(pattern, options) else { return false }
            let range = NSRange(subject.startIndex..<subject.endIndex, in: subject)
            return compiled.firstMatch(in: subject, options: [.anchored], range: range) != nil
        default:
            return false
        }
    }

    /// Whether `text` holds `needle`'s UTF-8 bytes, as BEGINSWITH and ENDSWITH compare bytes.
    ///
    /// Not Foundation's `contains`/`range(of:)`: on Linux they trap ("String index is out of bounds") or
    /// answer wrongly ("x" contains "x\0") when the needle holds a NUL — found by fuzzing.
    static func containsBytes(_ text: String, _ needle: String) -> Bool {
        var text = text
        var needle = needle
        return text.withUTF8 { haystack in
            needle.withUTF8 { needle in
                guard let first = needle.first else { return true }
                guard needle.count <= haystack.count else { return false }
                for start in 0...(haystack.count - needle.count) where haystack[start] == first {
                    if memcmp(haystack.baseAddress! + start, needle.baseAddress!, needle.count) == 0 { return true }
                }
                return false
            }
        }
    }

    /// One element of a `LIKE` pattern.
    private enum GlobElement: Equatable {
        case anyRun, anyOne
        case literal(Character)
    }

    /// A `LIKE` pattern's elements: `*`, `?`, and characters, where a backslash makes the character after it
    /// literal (`\*`, `\?`, `\\`), as in NSPredicate; a trailing backslash is itself literal.
    private static func glob(_ pattern: String) -> [GlobElement] {
        var elements: [GlobElement] = []
        var escaped = false
        for character in pattern {
            if escaped {
                elements.append(.literal(character))
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                elements.append(character == "*" ? .anyRun : character == "?" ? .anyOne : .literal(character))
            }
        }
        if escaped { elements.append(.literal("\\")) }
        return elements
    }

    /// `LIKE`: `*` matches any run of characters, `?` any one character, `\*` and `\?` the character itself;
    /// the whole string must match.
    public static func like(_ text: String, _ pattern: String, _ options: PredicateOptions) -> Bool {
        let subject = Array(fold(text, options))
        let glob = glob(fold(pattern, options))
        var s = 0
        var p = 0
        var starP = -1
        var starS = 0
        while s < subject.count {
            if p < glob.count, glob[p] == .anyOne || glob[p] == .literal(subject[s]) {
                s += 1
                p += 1
            } else if p < glob.count, glob[p] == .anyRun {
                starP = p
                starS = s
                p += 1
            } else if starP >= 0 {
                p = starP + 1
                starS += 1
                s = starS
            } else {
                return false
            }
        }
        while p < glob.count, glob[p] == .anyRun { p += 1 }
        return p == glob.count
    }

    /// `a + b`, `a - b`, `a * b`, `a / b`, `a ** b` as NSExpression computes them and SQLite does in compiled
    /// fetches:
    /// - nil if either side is nil (or not a number);
    /// - integers (and booleans, as 0 and 1) give an integer, division truncating toward zero (`7 / 2` is 3);
    ///   a result that overflows 64 bits is computed in floating point instead;
    /// - with a double or a decimal on either side, floating point (`7 / 2.0` is 3.5; decimals as doubles);
    /// - a power is always floating point, as NSExpression's `raise:toPower:` (`2 ** 3` is 8.0, so
    ///   `2 ** 3 / 3` is 2.67);
    /// - division by zero, and a result that is not a number (`(-8) ** 0.5`), give nil rather than a trap.
    public static func arithmetic(_ op: ArithmeticOperator, _ a: StoreValue, _ b: StoreValue) -> StoreValue {
        func integer(_ value: StoreValue) -> Int64? {
            switch value {
            case .integer(let v): return v
            case .boolean(let v): return v ? 1 : 0
            default: return nil
            }
        }
        if let x = integer(a), let y = integer(b) {
            let result: (partialValue: Int64, overflow: Bool)
            switch op {
            case .add: result = x.addingReportingOverflow(y)
            case .subtract: result = x.subtractingReportingOverflow(y)
            case .multiply: result = x.multipliedReportingOverflow(by: y)
            case .divide:
                if y == 0 { return .null }
                result = x.dividedReportingOverflow(by: y)
            case .power:
                result = (0, true)  // raise:toPower: computes in floating point, whatever its operands
            }
            if !result.overflow { return .integer(result.partialValue) }
        }
        guard let x = a.numericValue, let y = b.numericValue else { return .null }
        let result: Double
        switch op {
        case .add: result = x + y
        case .subtract: result = x - y
        case .multiply: result = x * y
        case .divide:
            if y == 0 { return .null }
            result = x / y
        case .power:
            result = Foundation.pow(x, y)
        }
        return result.isNaN ? .null : .double(result)
    }

    /// Orders strings by Unicode code point (UTF-8 byte order).
    public static func compareCodePoints(_ x: String, _ y: String) -> ComparisonResult {
        var left = x.utf8.makeIterator()
        var right = y.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return .orderedSame
            case (nil, _): return .orderedAscending
            case (_, nil): return .orderedDescending
            case (let l?, let r?):
                if l != r { return l < r ? .orderedAscending : .orderedDescending }
            }
        }
    }

    private static func compareBytes(_ x: Data, _ y: Data) -> ComparisonResult {
        if x == y { return .orderedSame }
        return x.lexicographicallyPrecedes(y) ? .orderedAscending : .orderedDescending
    }

    private static func compareIDs(_ x: ManagedObjectID, _ y: ManagedObjectID) -> ComparisonResult {
        if x.isTemporaryID != y.isTemporaryID { return x.isTemporaryID ? .orderedDescending : .orderedAscending }
        if x.key != y.key { return compare(x.key, y.key) }
        return compareCodePoints(x.entityName, y.entityName)
    }

    /// Orders rows by precomputed sort-key values, one per key.
    public static func compareSortKeys(_ a: [StoreValue], _ b: [StoreValue], _ keys: [BoundSortKey]) -> ComparisonResult
    {
        for (index, key) in keys.enumerated() {
            let result = sortOrder(a[index], b[index], caseInsensitive: key.caseInsensitive)
            if result != .orderedSame {
                return key.ascending ? result : (result == .orderedAscending ? .orderedDescending : .orderedAscending)
            }
        }
        return .orderedSame
    }

    static func compare<T: Comparable>(_ x: T, _ y: T) -> ComparisonResult {
        x < y ? .orderedAscending : (x == y ? .orderedSame : .orderedDescending)
    }

    private static func kindRank(_ value: StoreValue) -> Int {
        switch value {
        case .null: return 0
        case .boolean, .integer, .double, .decimal: return 1
        case .string: return 2
        case .date: return 3
        case .data: return 4
        case .uuid: return 5
        case .uri: return 6
        case .objectID: return 7
        }
    }

    /// `@count`, `@sum`, `@avg`, `@min`, `@max` of a collection's values (nils skipped except by `@count`):
    /// every store computes aggregates of values in memory through this one definition.
    public static func aggregate(_ function: AggregateFunction, _ values: [StoreValue]) -> StoreValue {
        let present = values.filter { !$0.isNull }
        switch function {
        case .count:
            return .integer(Int64(values.count))
        case .sum, .avg:
            if present.allSatisfy({ if case .integer = $0 { return true } else { return false } }), function == .sum {
                return .integer(
                    present.reduce(0) { total, value in
                        if case .integer(let v) = value { return total &+ v }
                        return total
                    })
            }
            let total = present.compactMap(\.numericValue).reduce(0, +)
            if function == .sum { return .double(total) }
            return present.isEmpty ? .null : .double(total / Double(present.count))
        case .min:
            return present.min { ValueComparison.sortOrder($0, $1, caseInsensitive: false) == .orderedAscending }
                ?? .null
        case .max:
            return present.max { ValueComparison.sortOrder($0, $1, caseInsensitive: false) == .orderedAscending }
                ?? .null
        }
    }
}
