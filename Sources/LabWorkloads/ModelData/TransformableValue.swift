import Foundation

/// A transformable attribute's generated value: a property list, the values Core Data's secure-coding transformer
/// (`NSSecureUnarchiveFromData`) takes — strings, integers, numbers, booleans, dates, data, arrays and dictionaries of
/// them.
///
/// It is what the generator plans, what a page of `ModelObjectPages` carries as JSON, what `ModelImporter` reads
/// back and compares keys by, and what a managed object is given (`object`, a Foundation value its transformer
/// archives). For example:
/// ```swift
/// let tags = TransformableValue.array([.string("amber"), .string("birch")])
/// try object.setValue(tags.object, forKey: "tags")   // ["amber", "birch"] as [String]
/// ```
public indirect enum TransformableValue: Sendable, Hashable {
    case string(String)
    case integer(Int64)
    case double(Double)
    case boolean(Bool)
    case date(Date)
    case data(Data)
    case array([TransformableValue])
    case dictionary([String: TransformableValue])

    // MARK: - Foundation values

    /// The Foundation value an app would set: `[String]` for an array of strings, `[Any]`, `[String: Any]`,
    /// `String`, `Int`, `Double`, `Bool`, `Date` or `Data`.
    public var object: Any {
        switch self {
        case .string(let text): return text
        case .integer(let number): return Int(number)
        case .double(let number): return number
        case .boolean(let flag): return flag
        case .date(let date): return date
        case .data(let data): return data
        case .array(let elements):
            let strings = elements.compactMap { element -> String? in
                if case .string(let text) = element { return text }
                return nil
            }
            return strings.count == elements.count ? strings as Any : elements.map(\.object) as Any
        case .dictionary(let entries): return entries.mapValues(\.object) as [String: Any]
        }
    }

    /// The value of `shape` a Foundation value stands for (as a transformer gives it back: `NSArray`,
    /// `NSDictionary`, `NSNumber`… or their Swift forms), nil when it does not fit the shape.
    init?(object: Any, shape: TransformableShape) {
        switch shape {
        case .strings:
            guard let elements = object as? [Any] else { return nil }
            var texts: [TransformableValue] = []
            for element in elements {
                guard let text = element as? String else { return nil }
                texts.append(.string(text))
            }
            self = .array(texts)
        case .integers:
            guard let elements = object as? [Any] else { return nil }
            var numbers: [TransformableValue] = []
            for element in elements {
                guard let number = Self.integer(element) else { return nil }
                numbers.append(.integer(number))
            }
            self = .array(numbers)
        case .dictionary:
            let entries: [String: Any]
            if let swift = object as? [String: Any] {
                entries = swift
            } else if let bridged = object as? [AnyHashable: Any] {
                var converted: [String: Any] = [:]
                for (key, element) in bridged {
                    guard let key = key.base as? String else { return nil }
                    converted[key] = element
                }
                entries = converted
            } else {
                return nil
            }
            var values: [String: TransformableValue] = [:]
            for (key, element) in entries {
                if let text = element as? String {
                    values[key] = .string(text)
                } else if let number = Self.integer(element) {
                    values[key] = .integer(number)
                } else {
                    return nil
                }
            }
            self = .dictionary(values)
        case .string:
            guard let text = object as? String else { return nil }
            self = .string(text)
        case .integer:
            guard let number = Self.integer(object) else { return nil }
            self = .integer(number)
        case .date:
            guard let date = object as? Date else { return nil }
            self = .date(date)
        case .data:
            guard let data = object as? Data else { return nil }
            self = .data(data)
        }
    }

    private static func integer(_ object: Any) -> Int64? {
        switch object {
        case let number as Int: return Int64(number)
        case let number as Int64: return number
        case let number as NSNumber: return number.int64Value
        default: return nil
        }
    }

    // MARK: - JSON

    /// The value as JSON: dates as ISO 8601 text, data as base64, the rest as JSON has them.
    func json(_ formatter: Date.ISO8601FormatStyle) -> Any {
        switch self {
        case .string(let text): return text
        case .integer(let number): return number
        case .double(let number): return number
        case .boolean(let flag): return flag
        case .date(let date): return formatter.format(date)
        case .data(let data): return data.base64EncodedString()
        case .array(let elements): return elements.map { $0.json(formatter) }
        case .dictionary(let entries): return entries.mapValues { $0.json(formatter) }
        }
    }

    /// The value of `shape` that JSON written by `json(_:)` stands for, nil when it does not fit the shape.
    init?(json: Any, shape: TransformableShape, _ formatter: Date.ISO8601FormatStyle) {
        switch shape {
        case .strings:
            guard let texts = json as? [String] else { return nil }
            self = .array(texts.map(TransformableValue.string))
        case .integers:
            guard let numbers = json as? [NSNumber] else { return nil }
            self = .array(numbers.map { .integer($0.int64Value) })
        case .dictionary:
            guard let entries = json as? [String: Any] else { return nil }
            var values: [String: TransformableValue] = [:]
            for (key, element) in entries {
                switch element {
                case let text as String: values[key] = .string(text)
                case let number as NSNumber: values[key] = .integer(number.int64Value)
                default: return nil
                }
            }
            self = .dictionary(values)
        case .string:
            guard let text = json as? String else { return nil }
            self = .string(text)
        case .integer:
            guard let number = json as? NSNumber else { return nil }
            self = .integer(number.int64Value)
        case .date:
            guard let text = json as? String, let date = try? formatter.parse(text) else { return nil }
            self = .date(date)
        case .data:
            guard let text = json as? String, let data = Data(base64Encoded: text) else { return nil }
            self = .data(data)
        }
    }

    /// Text equal values share, for comparing import keys: numbers by value, dictionaries by sorted key.
    var keyText: String {
        switch self {
        case .string(let text): return "s:\(text.count):\(text)"
        case .integer(let number): return "n:\(Double(number))"
        case .double(let number): return "n:\(number)"
        case .boolean(let flag): return "n:\(flag ? 1.0 : 0.0)"
        case .date(let date): return "d:\(date.timeIntervalSinceReferenceDate)"
        case .data(let data): return "b:\(data.base64EncodedString())"
        case .array(let elements): return "[" + elements.map(\.keyText).joined(separator: ",") + "]"
        case .dictionary(let entries):
            return "{"
                + entries.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.keyText)" }.joined(separator: ",")
                + "}"
        }
    }
}
