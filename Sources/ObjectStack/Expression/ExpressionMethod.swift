import Foundation

/// A method a mapping model's value expression calls: `FUNCTION(receiver, 'selector', arguments…)`.
///
/// Core Data evaluates these by sending the selector to the receiver. Here the receivers are known: a value (one of
/// the Foundation methods of strings, numbers, dates, UUIDs and URLs listed in `valueMethods`, computed as Foundation
/// computes them), the migration manager (`$manager`, its documented functions) or the entity mapping's policy
/// (`$entityPolicy`, the functions a Swift policy declares). Anything else is refused when the expression is bound,
/// before a migration writes anything.
struct ExpressionMethod: Hashable, Sendable, CustomStringConvertible {
    /// What the method is called on.
    enum Receiver: String, Hashable, Sendable {
        /// The value of the call's first argument.
        case value
        /// `$manager`, the migration manager.
        case manager
        /// `$entityPolicy`, the entity mapping's migration policy.
        case entityPolicy
    }

    let receiver: Receiver
    let selector: String

    var description: String {
        switch receiver {
        case .value: return "FUNCTION(…, '\(selector)')"
        case .manager: return "FUNCTION($manager, '\(selector)', …)"
        case .entityPolicy: return "FUNCTION($entityPolicy, '\(selector)', …)"
        }
    }

    // MARK: - $manager

    /// The migration manager's functions a value expression may call, with how many arguments each takes.
    static let managerFunctions: [String: Int] = [
        MigrationFunction.destinationInstancesForEntityMapping: 2,
        MigrationFunction.destinationInstancesForSourceRelationship: 2,
        MigrationFunction.sourceInstancesForEntityMapping: 2,
    ]

    /// The selectors of the manager's functions.
    enum MigrationFunction {
        static let destinationInstancesForEntityMapping = "destinationInstancesForEntityMappingNamed:sourceInstances:"
        static let destinationInstancesForSourceRelationship =
            "destinationInstancesForSourceRelationshipNamed:sourceInstances:"
        static let sourceInstancesForEntityMapping = "sourceInstancesForEntityMappingNamed:destinationInstances:"
    }

    // MARK: - Methods of values

    /// A Foundation method of a value: how many arguments it takes after the receiver, what it yields, and how.
    struct ValueMethod: Sendable {
        let arity: Int
        let result: ExpressionResultType
        let apply: @Sendable ([StoreValue]) -> StoreValue
    }

    /// The Foundation methods a value expression may call on a value, by selector: `NSString`'s
    /// (`uppercaseString`, `lowercaseString`, `capitalizedString`, `length`, `stringByAppendingString:`,
    /// `stringByReplacingOccurrencesOfString:withString:`, `substringToIndex:`, `substringFromIndex:`, `hasPrefix:`,
    /// `hasSuffix:`), `NSNumber`'s and `NSString`'s conversions (`integerValue`, `intValue`, `longLongValue`,
    /// `doubleValue`, `floatValue`, `boolValue`, `stringValue`, `description`), `NSDate`'s
    /// (`timeIntervalSinceReferenceDate`, `timeIntervalSince1970`, `dateByAddingTimeInterval:`), `NSUUID`'s
    /// `UUIDString`, `NSURL`'s `absoluteString` and `NSData`'s `length`. A receiver or argument of another kind,
    /// or nil, gives nil, as a message to nil does.
    static let valueMethods: [String: ValueMethod] = {
        @Sendable func string(_ arity: Int, _ body: @escaping @Sendable (String, [StoreValue]) -> String?)
            -> ValueMethod
        {
            ValueMethod(arity: arity, result: .string) { values in
                guard case .string(let text) = values[0] else { return .null }
                return body(text, Array(values.dropFirst())).map(StoreValue.string) ?? .null
            }
        }
        @Sendable func argumentString(_ values: [StoreValue], _ index: Int) -> String? {
            guard index < values.count, case .string(let text) = values[index] else { return nil }
            return text
        }
        @Sendable func argumentInteger(_ values: [StoreValue], _ index: Int) -> Int? {
            guard index < values.count, let number = values[index].numericValue, number.isFinite else { return nil }
            return Int(exactly: number.rounded(.towardZero))
        }
        @Sendable func utf16Prefix(_ text: String, _ count: Int) -> String? {
            let units = Array(text.utf16)
            guard count >= 0, count <= units.count else { return nil }
            return String(decoding: units[..<count], as: UTF16.self)
        }
        @Sendable func utf16Suffix(_ text: String, from start: Int) -> String? {
            let units = Array(text.utf16)
            guard start >= 0, start <= units.count else { return nil }
            return String(decoding: units[start...], as: UTF16.self)
        }
        var methods: [String: ValueMethod] = [
            "uppercaseString": string(0) { text, _ in text.uppercased() },
            "lowercaseString": string(0) { text, _ in text.lowercased() },
            "capitalizedString": string(0) { text, _ in text.capitalized },
            "stringByAppendingString:": string(1) { text, arguments in
                argumentString(arguments, 0).map { text + $0 }
            },
            "stringByReplacingOccurrencesOfString:withString:": string(2) { text, arguments in
                guard let target = argumentString(arguments, 0), !target.isEmpty,
                    let replacement = argumentString(arguments, 1)
                else { return nil }
                return text.replacingOccurrences(of: target, with: replacement)
            },
            "substringToIndex:": string(1) { text, arguments in
                argumentInteger(arguments, 0).flatMap { utf16Prefix(text, $0) }
            },
            "substringFromIndex:": string(1) { text, arguments in
                argumentInteger(arguments, 0).flatMap { utf16Suffix(text, from: $0) }
            },
        ]
        methods["hasPrefix:"] = ValueMethod(arity: 1, result: .number(.boolean)) { values in
            guard case .string(let text) = values[0], let prefix = argumentString(values, 1) else { return .null }
            return .boolean(text.hasPrefix(prefix))
        }
        methods["hasSuffix:"] = ValueMethod(arity: 1, result: .number(.boolean)) { values in
            guard case .string(let text) = values[0], let suffix = argumentString(values, 1) else { return .null }
            return .boolean(text.hasSuffix(suffix))
        }
        // NSString's length counts UTF-16 code units; NSData's, bytes.
        methods["length"] = ValueMethod(arity: 0, result: .number(.integer64)) { values in
            switch values[0] {
            case .string(let text): return .integer(Int64(text.utf16.count))
            case .data(let data): return .integer(Int64(data.count))
            default: return .null
            }
        }
        for selector in ["integerValue", "intValue", "longLongValue"] {
            methods[selector] = ValueMethod(arity: 0, result: .number(.integer64)) { values in
                ValueConversion.integer(values[0]).map(StoreValue.integer) ?? .null
            }
        }
        for selector in ["doubleValue", "floatValue"] {
            methods[selector] = ValueMethod(arity: 0, result: .number(.double)) { values in
                ValueConversion.double(values[0]).map(StoreValue.double) ?? .null
            }
        }
        methods["boolValue"] = ValueMethod(arity: 0, result: .number(.boolean)) { values in
            ValueConversion.boolean(values[0]).map(StoreValue.boolean) ?? .null
        }
        for selector in ["stringValue", "description"] {
            methods[selector] = ValueMethod(arity: 0, result: .string) { values in
                ValueConversion.string(values[0]).map(StoreValue.string) ?? .null
            }
        }
        methods["timeIntervalSinceReferenceDate"] = ValueMethod(arity: 0, result: .number(.double)) { values in
            guard case .date(let date) = values[0] else { return .null }
            return .double(date.timeIntervalSinceReferenceDate)
        }
        methods["timeIntervalSince1970"] = ValueMethod(arity: 0, result: .number(.double)) { values in
            guard case .date(let date) = values[0] else { return .null }
            return .double(date.timeIntervalSince1970)
        }
        methods["dateByAddingTimeInterval:"] = ValueMethod(arity: 1, result: .date) { values in
            guard case .date(let date) = values[0], values.count > 1, let seconds = values[1].numericValue else {
                return .null
            }
            return .date(date.addingTimeInterval(seconds))
        }
        methods["UUIDString"] = ValueMethod(arity: 0, result: .string) { values in
            guard case .uuid(let uuid) = values[0] else { return .null }
            return .string(uuid.uuidString)
        }
        methods["absoluteString"] = ValueMethod(arity: 0, result: .string) { values in
            guard case .uri(let url) = values[0] else { return .null }
            return .string(url.absoluteString)
        }
        return methods
    }()

    /// The method's value for its receiver's and arguments' values (a method of a value only).
    func apply(to values: [StoreValue]) -> StoreValue {
        guard receiver == .value, let method = Self.valueMethods[selector], let first = values.first,
            !first.isNull
        else { return .null }
        return method.apply(values)
    }

    /// What the method yields, known before it runs.
    var resultType: ExpressionResultType {
        switch receiver {
        case .value: return Self.valueMethods[selector]?.result ?? .any
        case .manager: return .object
        case .entityPolicy: return .any
        }
    }
}

/// NSNumber's and NSString's conversions between kinds of value (`integerValue`, `boolValue`, `stringValue`…).
enum ValueConversion {
    /// NSString's `integerValue` reads the leading integer after white space (0 when there is none); a number's is
    /// its integer part.
    static func integer(_ value: StoreValue) -> Int64? {
        switch value {
        case .integer(let number): return number
        case .boolean(let flag): return flag ? 1 : 0
        case .double, .decimal:
            guard let number = value.numericValue, number.isFinite else { return nil }
            return Int64(exactly: number.rounded(.towardZero)) ?? (number < 0 ? .min : .max)
        case .string(let text):
            let scanner = Scanner(string: text)
            return scanner.scanInt64() ?? 0
        default: return nil
        }
    }

    /// NSString's `doubleValue` reads the leading number after white space (0 when there is none).
    static func double(_ value: StoreValue) -> Double? {
        switch value {
        case .string(let text):
            let scanner = Scanner(string: text)
            return scanner.scanDouble() ?? 0
        case .date: return nil
        default: return value.numericValue
        }
    }

    /// NSString's `boolValue`: true when, after white space and an optional sign, the text starts with Y, y, T, t
    /// or a digit 1–9 (after any zeros); a number is true when it is not zero.
    static func boolean(_ value: StoreValue) -> Bool? {
        switch value {
        case .boolean(let flag): return flag
        case .string(let text):
            var rest = Substring(text).drop { $0.isWhitespace }
            if let sign = rest.first, sign == "+" || sign == "-" { rest = rest.dropFirst() }
            rest = rest.drop { $0 == "0" }
            guard let first = rest.first else { return false }
            return "YyTt123456789".contains(first)
        default:
            return value.numericValue.map { $0 != 0 }
        }
    }

    /// NSNumber's `stringValue` (a boolean is 1 or 0, a whole double has no fraction) and a string's own text.
    static func string(_ value: StoreValue) -> String? {
        switch value {
        case .string(let text): return text
        case .integer(let number): return String(number)
        case .boolean(let flag): return flag ? "1" : "0"
        case .double(let number):
            if number.isFinite, number.rounded() == number, abs(number) < 1e15 { return String(Int64(number)) }
            return String(number)
        case .decimal(let number): return "\(number)"
        case .uuid(let uuid): return uuid.uuidString
        case .uri(let url): return url.absoluteString
        default: return nil
        }
    }
}
