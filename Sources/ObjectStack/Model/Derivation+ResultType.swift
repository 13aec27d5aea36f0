import Foundation

extension Derivation {
    /// What a derivation yields, to check against its attribute's type when the model loads.
    enum ResultType: Equatable {
        case number(AttributeType?)
        case string, date, data, uuid, uri
        /// An object (a to-one relationship).
        case object
        /// A value whose type cannot be known before it is computed (nil).
        case any

        /// How an error names it: Core Data's attribute type names, or "number" / "object".
        var name: String {
            switch self {
            case .number(let type?): return Derivation.typeName(type)
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

        /// Whether an attribute of this type can hold the value.
        func fits(_ type: AttributeType) -> Bool {
            switch self {
            case .any: return true
            case .number: return type.isNumeric
            case .string: return type == .string
            case .date: return type == .date
            case .data: return type == .binaryData || type == .transformable
            case .uuid: return type == .uuid
            case .uri: return type == .uri
            case .object: return false
            }
        }
    }

    /// What the derivation yields for `attribute` (`now()` yields a date, or seconds for a numeric attribute).
    func resultType(for attribute: AttributeDescription) -> ResultType {
        switch self {
        case .now(let asNumber): return asNumber ? .number(.double) : .date
        case .canonical, .lowercase, .uppercase: return .string
        case .expression(let expression): return Self.resultType(of: expression)
        }
    }

    private static func resultType(of expression: BoundExpression) -> ResultType {
        switch expression {
        case .constant(let value): return resultType(of: value)
        case .list, .subquery: return .number(.integer64)  // a collection's value is its count
        case .arithmetic: return .number(nil)
        case .aggregate(let function, let inner):
            let element = elementType(of: inner)
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
            return path.finalAttribute.map { resultType(of: $0.type) } ?? .object
        }
    }

    /// The type of one value of an aggregate's collection (`chapters.pages` holds Integer 32 values).
    private static func elementType(of expression: BoundExpression) -> ResultType {
        guard case .keyPath(let path) = expression else { return resultType(of: expression) }
        return path.finalAttribute.map { resultType(of: $0.type) } ?? .object
    }

    private static func resultType(of value: StoreValue) -> ResultType {
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

    private static func resultType(of type: AttributeType) -> ResultType {
        switch type {
        case .integer16, .integer32, .integer64, .double, .float, .decimal, .boolean: return .number(type)
        case .string: return .string
        case .date: return .date
        case .binaryData, .transformable: return .data
        case .uuid: return .uuid
        case .uri: return .uri
        }
    }

    /// Refuses a derivation whose result an attribute of its type cannot hold, as Core Data does when it loads
    /// the model (instead of leaving the attribute unset at every save).
    /// - Throws: `ObjectStackError` `.invalidModel` naming the entity, the attribute, both types and the derivation.
    func checkResultType(of attribute: AttributeDescription, in entity: EntityDescription) throws {
        let result = resultType(for: attribute)
        guard !result.fits(attribute.type) else { return }
        throw ObjectStackError.invalidModel(
            "derived attribute \(entity.name).\(attribute.name) is \(Self.typeName(attribute.type)), but its derivation "
                + "'\(attribute.derivationExpression ?? "")' yields \(result == .object ? "an object" : result.name)")
    }

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
