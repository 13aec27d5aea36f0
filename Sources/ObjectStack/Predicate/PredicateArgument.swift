import Foundation

/// A type that can be passed as a `%@` predicate argument, such as a managed object or an object ID.
public protocol PredicateArgumentConvertible {
    /// The constant the argument stands for in a predicate.
    var predicateArgument: StoreValue { get }
}

/// Why a format argument cannot be used; the parser reports it at the argument's placeholder.
struct UnsupportedPredicateArgument: Error {
    let reason: String
}

/// Lets the converter see through `Optional`s boxed in `Any`, which `as?` alone cannot unwrap generically.
private protocol OptionalArgument {
    var wrappedArgument: Any? { get }
}

extension Optional: OptionalArgument {
    fileprivate var wrappedArgument: Any? { map { $0 as Any } }
}

/// Converts format arguments (`Any`) into predicate expressions.
enum PredicateArgument {
    /// The expression a placeholder of `kind` stands for, given its argument.
    static func expression(
        for value: Any, as kind: PredicateArgumentKind, placeholder: String
    ) throws(UnsupportedPredicateArgument) -> PredicateExpression {
        let typeName = String(describing: type(of: value))
        let converted = kind == .object ? nil : try? expression(for: value)
        switch (kind, converted) {
        case (.object, _):
            return try expression(for: value)
        case (.keyPath, .constant(.string(let path))?):
            let components = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard !components.contains(where: \.isEmpty) else {
                throw UnsupportedPredicateArgument(reason: "invalid key path '\(path)' for %K")
            }
            return .keyPath(components)
        case (.integer, .constant(.integer(let integer))?):
            return .constant(.integer(integer))
        case (.double, .constant(.double(let double))?):
            return .constant(.double(double))
        case (.double, .constant(.integer(let integer))?):
            return .constant(.double(Double(integer)))
        case (.keyPath, _):
            throw UnsupportedPredicateArgument(reason: "\(placeholder) needs a string argument, not '\(typeName)'")
        case (.integer, _):
            throw UnsupportedPredicateArgument(reason: "\(placeholder) needs an integer argument, not '\(typeName)'")
        case (.double, _):
            throw UnsupportedPredicateArgument(reason: "\(placeholder) needs a number argument, not '\(typeName)'")
        }
    }

    /// The expression for a `%@` argument: a constant, or a list for an array, a set or another sequence.
    static func expression(for value: Any) throws(UnsupportedPredicateArgument) -> PredicateExpression {
        if let optional = value as? any OptionalArgument {
            guard let wrapped = optional.wrappedArgument else { return .constant(.null) }
            return try expression(for: wrapped)
        }
        // Swift numbers and Bools cast to NSNumber and back, so only a real NSNumber instance goes this way.
        if type(of: value) is NSNumber.Type, let number = value as? NSNumber {
            return .constant(try constant(for: number))
        }
        switch value {
        case is NSNull: return .constant(.null)
        case let value as StoreValue: return .constant(value)
        case let value as any PredicateArgumentConvertible: return .constant(value.predicateArgument)
        case let value as Bool: return .constant(.boolean(value))
        case let value as any BinaryInteger:
            guard let integer = Int64(exactly: value) else {
                throw UnsupportedPredicateArgument(
                    reason: "argument \(value) (\(type(of: value))) is out of range for a 64-bit integer")
            }
            return .constant(.integer(integer))
        case let value as any BinaryFloatingPoint: return .constant(.double(Double(value)))
        case let value as Decimal: return .constant(.decimal(value))
        case let value as String: return .constant(.string(value))
        case let value as Substring: return .constant(.string(String(value)))
        case let value as Character: return .constant(.string(String(value)))
        case let value as Date: return .constant(.date(value))
        case let value as Data: return .constant(.data(value))
        case let value as UUID: return .constant(.uuid(value))
        case let value as URL: return .constant(.uri(value))
        case let value as any Sequence: return .list(try elements(of: value).map(expression(for:)))
        default:
            throw UnsupportedPredicateArgument(reason: "unsupported argument type '\(type(of: value))'")
        }
    }

    private static func elements(of sequence: some Sequence) -> [Any] {
        sequence.map { $0 as Any }
    }

    /// An NSNumber's value by its stored type; Bools are told apart by identity with the shared true/false
    /// instances, since `objCType` alone cannot separate them from `char` numbers.
    private static func constant(for number: NSNumber) throws(UnsupportedPredicateArgument) -> StoreValue {
        if let decimal = number as? NSDecimalNumber { return .decimal(decimal.decimalValue) }
        let type = String(cString: number.objCType)
        if type == "c" || type == "B", number === NSNumber(value: true) || number === NSNumber(value: false) {
            return .boolean(number.boolValue)
        }
        switch type {
        case "f", "d": return .double(number.doubleValue)
        case "Q", "L":
            guard let integer = Int64(exactly: number.uint64Value) else {
                throw UnsupportedPredicateArgument(
                    reason: "argument \(number) (NSNumber) is out of range for a 64-bit integer")
            }
            return .integer(integer)
        default: return .integer(number.int64Value)
        }
    }
}
