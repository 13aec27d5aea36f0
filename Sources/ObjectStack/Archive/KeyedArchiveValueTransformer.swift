import Foundation

/// The value transformer Core Data uses for a transformable attribute that names none (`NSKeyedUnarchiveFromData`,
/// and `NSSecureUnarchiveFromData` since iOS 12): a value is stored as a keyed archive of Foundation objects.
///
/// For example:
/// ```swift
/// let transformer = KeyedArchiveValueTransformer()
/// let data = try transformer.transformedValue(["tags": ["a", "b"], "count": 2])
/// let value = try transformer.reverseTransformedValue(data) as? [String: Any]
/// ```
/// Reading takes Foundation's plist-like classes to Swift values: `NSString` to `String`, `NSNumber` to `Int`,
/// `Double` or `Bool`, `NSArray`, `NSSet` and `NSOrderedSet` to `[Any]`, `NSDictionary` to `[String: Any]`, `NSData`
/// to `Data`, `NSDate` to `Date`, `NSURL` to `URL`, `NSUUID` to `UUID`, `NSNull` to `NSNull`. An object of any
/// other class (an app's own `NSSecureCoding` class, whose Swift code is not here) reads as a dictionary of its
/// archived keys with its class under `"$classname"`, so a store Core Data wrote can always be read. Writing
/// archives the same values with `NSKeyedArchiver`, as secure coding requires (Foundation on Linux archives a
/// boolean as the number 1 or 0, which reads back as an `Int`).
///
/// It is registered under Core Data's transformer names unless an app registers its own
/// (`ValueTransformerRegistry`).
public struct KeyedArchiveValueTransformer: AttributeValueTransformer {
    /// The names Core Data gives the keyed-archive transformers.
    public static let names = [
        "NSKeyedUnarchiveFromData", "NSSecureUnarchiveFromData", "NSSecureUnarchiveFromDataTransformer",
    ]

    /// Creates the transformer.
    public init() {}

    /// Archives a value of Foundation's property-list-like types.
    /// - Throws: `ObjectStackError` `.typeMismatch` for a value of another type.
    public func transformedValue(_ value: Any) throws -> Data {
        let object = try Self.foundationObject(value)
        return try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: true)
    }

    /// Reads an archive into Swift values.
    /// - Throws: `KeyedArchive.Error` for data that is not a keyed archive.
    public func reverseTransformedValue(_ data: Data) throws -> Any {
        let archive = try KeyedArchive(data: data)
        guard let root = archive.top["root"] else { throw KeyedArchive.Error("the archive has no root object") }
        return Self.value(root, in: archive, depth: 0)
    }

    // MARK: - Writing

    private static func foundationObject(_ value: Any) throws -> Any {
        switch value {
        case let text as String: return NSString(string: text)
        case let flag as Bool where type(of: value) == Bool.self: return NSNumber(value: flag)
        case let number as Int: return NSNumber(value: number)
        case let number as Int64: return NSNumber(value: number)
        case let number as Double: return NSNumber(value: number)
        case let number as NSNumber: return number
        case let data as Data: return NSData(data: data)
        case let date as Date: return NSDate(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate)
        case let url as URL: return NSURL(string: url.absoluteString) ?? NSNull()
        case let uuid as UUID: return NSUUID(uuidString: uuid.uuidString) ?? NSNull()
        case is NSNull: return NSNull()
        case let array as [Any]: return NSArray(array: try array.map(foundationObject))
        case let dictionary as [String: Any]:
            let converted = try dictionary.mapValues(foundationObject)
            return NSDictionary(dictionary: converted)
        default:
            throw ObjectStackError(
                code: .typeMismatch,
                message: "a keyed-archive transformer stores Foundation's plist-like values, not \(type(of: value))")
        }
    }

    // MARK: - Reading

    /// Archives nest only as deep as the data they came from; a cycle (an object that contains itself) is cut
    /// here instead of recursing for ever.
    private static let maximumDepth = 256

    private static func value(_ value: KeyedArchive.Value, in archive: KeyedArchive, depth: Int) -> Any {
        guard depth < maximumDepth else { return NSNull() }
        switch archive.resolved(value) {
        case .null: return NSNull()
        case .string(let text): return text
        case .integer(let number): return Int(truncatingIfNeeded: number)
        case .real(let number): return number
        case .boolean(let flag): return flag
        case .data(let data): return data
        case .date(let date): return date
        case .array(let items): return items.map { self.value($0, in: archive, depth: depth + 1) }
        case .dictionary(let items): return items.mapValues { self.value($0, in: archive, depth: depth + 1) }
        case .reference:
            guard let object = archive.object(value) else { return NSNull() }
            return self.object(object, in: archive, depth: depth + 1)
        }
    }

    private static func object(_ object: KeyedArchive.Object, in archive: KeyedArchive, depth: Int) -> Any {
        let classes = Set(object.classNames)
        if let text = object.stringValue { return text }
        if classes.contains("NSNull") { return NSNull() }
        if classes.contains("NSDate"), case .real(let seconds)? = object.plain("NS.time") {
            return Date(timeIntervalSinceReferenceDate: seconds)
        }
        if classes.contains("NSUUID"), let bytes = object.data("NS.uuidbytes"), bytes.count == 16 {
            return UUID(uuid: bytes.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) })
        }
        if classes.contains("NSURL"), let relative = object.string("NS.relative") {
            let base = object.object("NS.base").flatMap { self.object($0, in: archive, depth: depth + 1) as? URL }
            if let url = URL(string: relative, relativeTo: base) { return url.absoluteURL }
        }
        if let data = object.dataValue { return data }
        if !classes.isDisjoint(with: ["NSDictionary", "NSMutableDictionary"]), let entries = object.entries {
            var dictionary: [String: Any] = [:]
            for (key, item) in entries { dictionary[key] = value(item, in: archive, depth: depth + 1) }
            return dictionary
        }
        if let elements = object.elements {
            return elements.map { value($0, in: archive, depth: depth + 1) }
        }
        var fields: [String: Any] = ["$classname": object.className ?? "?"]
        for key in object.keys { fields[key] = value(object[key]!, in: archive, depth: depth + 1) }
        return fields
    }
}
