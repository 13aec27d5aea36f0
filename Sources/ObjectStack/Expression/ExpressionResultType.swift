import Foundation

/// What a bound property expression yields, known before it is computed: to check it against the attribute it
/// sets (a derived attribute when the model loads, a batch update before anything is written).
enum ExpressionResultType: Equatable {
    case number(AttributeType?)
    case string, date, data, uuid, uri
    /// An object (a to-one relationship).
    case object
    /// A value whose type cannot be known before it is computed (nil).
    case any

    /// How an error names it: Core Data's attribute type names, or "number" / "object".
    var name: String {
        switch self {
        case .number(let type?): return Self.typeName(type)
        case .number(nil): return "number"
        case .string: return "String"
        case .date: return "Date"
        case .data: return "Binary Data"
        case .uuid: return "UUID"
        case .uri: return "URI"
        case .object: return "object"
        case .any: return "any value"
        }
    }

    /// Whether an attribute of this type can hold the value. A date fits a number as its seconds since the
    /// reference date (`now()` for a Double timestamp), as Core Data's derived `now()` does.
    func fits(_ type: AttributeType) -> Bool {
        switch self {
        case .any: return true
        case .number: return type.isNumeric
        case .string: return type == .string
        case .date: return type == .date || type.isNumeric
        case .data: return type == .binaryData || type == .transformable
        case .uuid: return type == .uuid
        case .uri: return type == .uri
        case .object: return false
        }
    }

    // MARK: - Of expressions

    /// What a bound expression yields.
    static func of(_ expression: BoundPropertyExpression) -> ExpressionResultType {
        switch expression {
        case .operand(let operand): return of(operand)
        case .arithmetic: return .number(nil)
        case .function(let function, let arguments):
            if let method = function.method { return method.resultType }
            switch function.resultKind {
            case .string: return .string
            case .date: return .date
            case .number:
                return function.kind == .count ? .number(.integer64) : .number(nil)
            case .argument:
                let types = Set(arguments.map { element(of: $0) }.map(\.name))
                return types.count == 1 ? element(of: arguments[0]) : .any
            }
        }
    }

    /// What an operand of the predicate language yields; a collection counts as its count.
    static func of(_ expression: BoundExpression) -> ExpressionResultType {
        switch expression {
        case .constant(let value): return of(value)
        case .list, .subquery: return .number(.integer64)  // a collection's value is its count
        case .arithmetic: return .number(nil)
        case .aggregate(let function, let inner):
            let element = element(of: .operand(inner))
            switch function {
            case .count: return .number(.integer64)
            case .avg: return .number(.double)
            case .sum:
                guard case .number(let type?) = element, type.isInteger else { return .number(.double) }
                return .number(.integer64)
            case .min, .max: return element
            }
        case .keyPath(let path):
            if path.isCollection { return .number(.integer64) }
            return path.finalAttribute.map { of($0.type) } ?? .object
        }
    }

    /// The type of one value of an expression: of each value of a collection (`chapters.pages` holds Integer 32
    /// values), of the expression itself otherwise.
    static func element(of expression: BoundPropertyExpression) -> ExpressionResultType {
        guard case .operand(.keyPath(let path)) = expression else { return of(expression) }
        return path.finalAttribute.map { of($0.type) } ?? .object
    }

    static func of(_ value: StoreValue) -> ExpressionResultType {
        switch value {
        case .null: return .any
        case .integer: return .number(.integer64)
        case .double: return .number(.double)
        case .decimal: return .number(.decimal)
        case .boolean: return .number(.boolean)
        case .string: return .string
        case .date: return .date
        case .data: return .data
        case .uuid: return .uuid
        case .uri: return .uri
        case .objectID: return .object
        }
    }

    static func of(_ type: AttributeType) -> ExpressionResultType {
        switch type {
        case .integer16, .integer32, .integer64, .double, .float, .decimal, .boolean: return .number(type)
        case .string: return .string
        case .date: return .date
        case .binaryData, .transformable: return .data
        case .uuid: return .uuid
        case .uri: return .uri
        }
    }

    // MARK: - Names

    /// Core Data's name of an attribute type, as Xcode's model editor shows it.
    static func typeName(_ type: AttributeType) -> String {
        switch type {
        case .integer16: return "Integer 16"
        case .integer32: return "Integer 32"
        case .integer64: return "Integer 64"
        case .double: return "Double"
        case .float: return "Float"
        case .decimal: return "Decimal"
        case .boolean: return "Boolean"
        case .string: return "String"
        case .date: return "Date"
        case .binaryData: return "Binary Data"
        case .uuid: return "UUID"
        case .uri: return "URI"
        case .transformable: return "Transformable"
        }
    }
}
