import Foundation

/// The type of an attribute, as in Core Data's attribute types.
public enum AttributeType: String, Sendable, Hashable, CaseIterable {
    case integer16
    case integer32
    case integer64
    case double
    case float
    case decimal
    case boolean
    case string
    case date
    case binaryData
    case uuid
    case uri
    /// A value stored as data through a transformer registered by name (`ValueTransformerRegistry`).
    case transformable

    /// Whether values of this type are numbers (booleans included, as in Core Data).
    public var isNumeric: Bool {
        switch self {
        case .integer16, .integer32, .integer64, .double, .float, .decimal, .boolean: return true
        default: return false
        }
    }

    /// Whether values of this type are integers.
    public var isInteger: Bool {
        switch self {
        case .integer16, .integer32, .integer64: return true
        default: return false
        }
    }

    /// The range an integer attribute of this type can hold.
    var integerRange: ClosedRange<Int64>? {
        switch self {
        case .integer16: return Int64(Int16.min)...Int64(Int16.max)
        case .integer32: return Int64(Int32.min)...Int64(Int32.max)
        case .integer64: return Int64.min...Int64.max
        default: return nil
        }
    }
}
