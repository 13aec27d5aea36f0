import Foundation
import LabCore
import ObjectStack

/// The one way a generated value travels, whichever path writes it: planned by `PopulationPlan`, written by
/// `ModelPopulator`, `ModelObjectInserter` and `ModelObjectUpdater`, served as JSON by `ModelObjectPages` and read
/// back by `ModelImporter`, which sets it through the same `ManagedObject.setGeneratedValue(_:forKey:)`.
extension AttributeValueGenerator.Value {
    /// The value as a page of `ModelObjectPages` carries it: dates as ISO 8601 with fractional seconds, data as
    /// base64, UUIDs and URIs as text, decimals as text so no digit is lost, transformable values as
    /// `TransformableValue.json(_:)` writes them.
    func json(_ formatter: Date.ISO8601FormatStyle) -> Any {
        switch self {
        case .transformable(let value): return value.json(formatter)
        case .store(let value):
            switch value {
            case .null, .objectID: return NSNull()
            case .integer(let number): return number
            case .double(let number): return number
            case .decimal(let number): return "\(number)"
            case .boolean(let flag): return flag
            case .string(let text): return text
            case .date(let date): return formatter.format(date)
            case .data(let data): return data.base64EncodedString()
            case .uuid(let uuid): return uuid.uuidString
            case .uri(let url): return url.absoluteString
            }
        }
    }

    /// The value of `attribute` that JSON written by `json(_:)` stands for; `shape` is a transformable attribute's.
    /// - Throws: `LabError.invalidResults` naming the object (`id`) and attribute when the JSON does not fit.
    init(
        json: Any, _ attribute: AttributeDescription, shape: TransformableShape?, where id: String,
        _ formatter: Date.ISO8601FormatStyle
    ) throws {
        if attribute.type == .transformable {
            guard let shape, let value = TransformableValue(json: json, shape: shape, formatter) else {
                throw LabError(
                    .invalidResults,
                    "\(id).\(attribute.name): \(json) is not a transformable value"
                        + (shape.map { " of the kind its transformer takes (\($0.rawValue))" } ?? ""))
            }
            self = .transformable(value)
            return
        }
        let number = json as? NSNumber
        let text = json as? String
        let value: StoreValue?
        switch attribute.type {
        case .integer16, .integer32, .integer64: value = number.map { .integer($0.int64Value) }
        case .double, .float: value = number.map { .double($0.doubleValue) }
        case .decimal:
            value =
                text.flatMap { Decimal(string: $0) }.map(StoreValue.decimal) ?? number.map { .decimal($0.decimalValue) }
        case .boolean: value = (json as? Bool).map(StoreValue.boolean) ?? number.map { .boolean($0.boolValue) }
        case .string: value = text.map(StoreValue.string)
        case .date: value = text.flatMap { try? formatter.parse($0) }.map(StoreValue.date)
        case .binaryData: value = text.flatMap { Data(base64Encoded: $0) }.map(StoreValue.data)
        case .uuid: value = text.flatMap(UUID.init(uuidString:)).map(StoreValue.uuid)
        case .uri: value = text.flatMap(URL.init(string:)).map(StoreValue.uri)
        case .transformable: value = nil
        }
        guard let value else {
            throw LabError(
                .invalidResults, "\(id).\(attribute.name): \(json) is not a \(attribute.type.rawValue) value")
        }
        self = .store(value)
    }

    /// The value an object holds for `attribute` (as `value(forKey:)` gives it), nil when it holds none or a
    /// transformable value not of `shape`.
    init?(object: Any?, _ attribute: AttributeDescription, shape: TransformableShape?) {
        guard let object else { return nil }
        if attribute.type == .transformable {
            guard let shape, let value = TransformableValue(object: object, shape: shape) else { return nil }
            self = .transformable(value)
        } else {
            self = .store(Self.storeValue(object: object))
        }
    }

    /// A fetched object's value as a store value, for comparing keys.
    static func storeValue(object: Any?) -> StoreValue {
        switch object {
        case nil: return .null
        case let value as Decimal: return .decimal(value)
        case let value as String: return .string(value)
        case let value as Date: return .date(value)
        case let value as Data: return .data(value)
        case let value as UUID: return .uuid(value)
        case let value as URL: return .uri(value)
        case let value as NSNumber:
            let double = value.doubleValue
            return double == double.rounded() && abs(double) < 9e15 ? .integer(value.int64Value) : .double(double)
        default: return .null
        }
    }

    /// Text that equal values share, whichever way they were read (numbers by value), for comparing import keys.
    var keyText: String {
        switch self {
        case .transformable(let value): return "t:" + value.keyText
        case .store(let value):
            switch value {
            case .integer(let number): return "n:\(Double(number))"
            case .double(let number): return "n:\(number)"
            case .boolean(let flag): return "n:\(flag ? 1.0 : 0.0)"
            case .decimal(let number): return "n:\(NSDecimalNumber(decimal: number).doubleValue)"
            case .date(let date): return "d:\(date.timeIntervalSinceReferenceDate)"
            case .data(let data): return "b:\(data.base64EncodedString())"
            default: return "\(value.kindName):\(value)"
            }
        }
    }
}
