import Foundation

/// A value as stores hold it: one attribute of a row, a to-one reference, or a predicate constant.
///
/// Every store reads and writes these, so a value means the same thing on SQLite, LMDB and in
/// memory. Integers of every width are `.integer`; `float` attributes are `.double`; transformable
/// attributes are stored as `.data` (the transformer's output).
public enum StoreValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case double(Double)
    case decimal(Decimal)
    case boolean(Bool)
    case string(String)
    case date(Date)
    case data(Data)
    case uuid(UUID)
    case uri(URL)
    /// A reference to another object (a to-one relationship, or an object argument of a predicate).
    case objectID(ManagedObjectID)

    /// Whether this is `.null`.
    @inlinable
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The value as a `Double` when it is numeric (integer, double, decimal or boolean).
    @inlinable
    public var numericValue: Double? {
        switch self {
        case .integer(let v): return Double(v)
        case .double(let v): return v
        case .decimal(let v): return NSDecimalNumber(decimal: v).doubleValue
        case .boolean(let v): return v ? 1 : 0
        default: return nil
        }
    }

    /// A short name of the value's kind, for error messages.
    public var kindName: String {
        switch self {
        case .null: return "nil"
        case .integer: return "integer"
        case .double: return "double"
        case .decimal: return "decimal"
        case .boolean: return "boolean"
        case .string: return "string"
        case .date: return "date"
        case .data: return "data"
        case .uuid: return "UUID"
        case .uri: return "URI"
        case .objectID: return "object"
        }
    }
}

extension StoreValue: CustomStringConvertible {
    /// The value as a predicate format string would spell it.
    public var description: String {
        switch self {
        case .null: return "nil"
        case .integer(let v): return String(v)
        case .double(let v): return String(v)
        case .decimal(let v): return "\(v)"
        case .boolean(let v): return v ? "TRUE" : "FALSE"
        case .string(let v):
            let escaped = v.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            return "\"\(escaped)\""
        case .date(let v): return "CAST(\(v.timeIntervalSinceReferenceDate), \"NSDate\")"
        case .data(let v): return "<\(v.count) bytes>"
        case .uuid(let v): return v.uuidString
        case .uri(let v): return v.absoluteString
        case .objectID(let id): return id.uriRepresentation().absoluteString
        }
    }
}

extension StoreValue: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByStringLiteral
{
    /// Lets models spell default values plainly: `defaultValue: 0`.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// Lets models spell default values plainly: `defaultValue: 0.5`.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// Lets models spell default values plainly: `defaultValue: true`.
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
    /// Lets models spell default values plainly: `defaultValue: "none"`.
    public init(stringLiteral value: String) { self = .string(value) }
}
