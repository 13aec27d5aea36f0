import Foundation
import ObjectStack

/// The kind of value the generator gives a transformable attribute: the one its class (`customClassName`, Core
/// Data's `attributeValueClassName`) names, else the first its registered transformer takes and gives back, in
/// the order of `allCases` (a list of strings first, as most transformable attributes of real models hold).
///
/// For example, `<attribute name="tags" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData"
/// customClassName="[String]"/>` gets `.strings`; `customClassName="NSDictionary"` gets `.dictionary`.
enum TransformableShape: String, Sendable, CaseIterable {
    /// An array of strings (`[String]`, `NSArray`, and classes the lab does not know, such as `UIColor`).
    case strings
    /// An array of integers (`[Int]`, `[NSNumber]`).
    case integers
    /// A dictionary of strings and integers by string (`[String: Any]`, `NSDictionary`).
    case dictionary
    /// A string (`String`, `NSString`, `URL`, `UUID`).
    case string
    /// An integer (`NSNumber`, `Int`, `Double`, `Bool`).
    case integer
    /// A date (`Date`, `NSDate`).
    case date
    /// Data (`Data`, `NSData`).
    case data

    /// The shape a class name stands for, nil for one the lab does not know.
    static func named(_ className: String?) -> TransformableShape? {
        guard let className else { return nil }
        let name = className.replacingOccurrences(of: " ", with: "")
        func element(_ text: Substring) -> TransformableShape? {
            switch text {
            case "String", "NSString", "Any", "AnyObject", "URL", "NSURL", "UUID", "NSUUID": return .strings
            case "Int", "Int16", "Int32", "Int64", "Double", "Float", "NSNumber", "Bool": return .integers
            default: return nil
            }
        }
        if name.hasPrefix("["), name.hasSuffix("]") {
            let inner = name.dropFirst().dropLast()
            return inner.contains(":") ? .dictionary : element(inner) ?? .strings
        }
        for prefix in ["Array<", "Set<", "NSOrderedSet<", "NSSet<"] where name.hasPrefix(prefix) && name.hasSuffix(">")
        {
            return element(name.dropFirst(prefix.count).dropLast()) ?? .strings
        }
        if name.hasPrefix("Dictionary<") { return .dictionary }
        switch name {
        case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet", "NSMutableOrderedSet":
            return .strings
        case "NSDictionary", "NSMutableDictionary": return .dictionary
        case "String", "NSString", "NSMutableString", "URL", "NSURL", "UUID", "NSUUID": return .string
        case "NSNumber", "NSDecimalNumber", "Int", "Int16", "Int32", "Int64", "Double", "Float", "Bool": return .integer
        case "Date", "NSDate": return .date
        case "Data", "NSData", "NSMutableData": return .data
        default: return nil
        }
    }

    /// The shape for `attribute`: its class's when its registered transformer takes it and gives it back, else the
    /// first of `allCases` that does; the failure says why none fits.
    static func resolve(_ attribute: AttributeDescription) -> Result<TransformableShape, Unfit> {
        guard let name = attribute.valueTransformerName,
            let transformer = ValueTransformerRegistry.transformer(named: name)
        else { return .failure(Unfit("no value transformer is registered for it")) }
        let preferred = named(attribute.modelFileMetadata.attributeValueClassName)
        var firstError: Error?
        for shape in (preferred.map { [$0] } ?? []) + allCases.filter({ $0 != preferred }) {
            let sample = shape.sample
            do {
                let back = try transformer.reverseTransformedValue(try transformer.transformedValue(sample.object))
                if TransformableValue(object: back, shape: shape) == sample { return .success(shape) }
            } catch {
                if firstError == nil { firstError = error }
            }
        }
        return .failure(
            Unfit(
                "its registered transformer \(name) takes none of the generator's values (lists of strings or "
                    + "integers, dictionaries, strings, integers, dates, data) and gives it back"
                    + (firstError.map { ": \($0)" } ?? "")))
    }

    /// Why no shape fits an attribute.
    struct Unfit: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// A value of the shape, to try a transformer with.
    var sample: TransformableValue {
        switch self {
        case .strings: return .array([.string("amber"), .string("birch")])
        case .integers: return .array([.integer(3), .integer(5)])
        case .dictionary: return .dictionary(["name": .string("amber"), "count": .integer(2)])
        case .string: return .string("amber")
        case .integer: return .integer(7)
        case .date: return .date(Date(timeIntervalSinceReferenceDate: AttributeValueGenerator.firstDate))
        case .data: return .data(Data([1, 2, 3]))
        }
    }

    /// The value for the object at `index`: distinct for every index when `unique`, else drawn.
    func value(index: Int, unique: Bool, using random: inout SplitMix64) -> TransformableValue {
        let words = AttributeValueGenerator.words
        func drawnWords(_ range: ClosedRange<Int>) -> [String] {
            (0..<Int.random(in: range, using: &random)).map { _ in random.pick(words) }
        }
        let key = String(index, radix: 36)
        switch self {
        case .strings:
            let drawn = drawnWords(unique ? 0...2 : 1...3)
            return .array(((unique ? [key] : []) + drawn).map(TransformableValue.string))
        case .integers:
            let drawn = (0..<Int.random(in: unique ? 0...2 : 1...3, using: &random)).map { _ in
                TransformableValue.integer(Int64.random(in: 0...999, using: &random))
            }
            return .array((unique ? [.integer(Int64(index))] : []) + drawn)
        case .dictionary:
            var entries: [String: TransformableValue] = ["name": .string(random.pick(words))]
            if unique {
                entries["id"] = .integer(Int64(index))
            } else {
                entries["count"] = .integer(Int64.random(in: 0...99, using: &random))
            }
            return .dictionary(entries)
        case .string:
            let text = drawnWords(1...3).joined(separator: " ")
            return .string(unique ? "\(key)-\(text)" : text)
        case .integer:
            return .integer(unique ? Int64(index) : Int64.random(in: 0...1_000, using: &random))
        case .date:
            let first = AttributeValueGenerator.firstDate
            let seconds =
                unique
                ? first + Double(index)
                : Double.random(in: first...(first + AttributeValueGenerator.dateSpan), using: &random).rounded(.down)
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case .data:
            var bytes = unique ? withUnsafeBytes(of: UInt64(index).bigEndian) { Array($0) } : []
            let count = Int.random(in: unique ? 0...8 : 8...32, using: &random)
            bytes += (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
            return .data(Data(bytes))
        }
    }
}
