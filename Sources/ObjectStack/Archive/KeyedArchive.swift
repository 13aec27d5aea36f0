import Foundation
import Synchronization

/// A keyed archive (the format of `NSKeyedArchiver`) read as a graph of plain values, without the classes it
/// names.
///
/// For example:
/// ```swift
/// let archive = try KeyedArchive(data: modelCacheData)
/// let root = try archive.root()                       // the object under "root" in $top
/// root.className                                      // "NSManagedObjectModel"
/// let entities = root["NSEntities"]?.dictionary       // resolved through $objects
/// ```
/// Core Data keeps archives of its own objects in files other tools read: a SQLite store's model cache
/// (`Z_MODELCACHE`), the source and destination models and value expressions of a mapping model, the default
/// values of transformable attributes. Decoding them with `NSKeyedUnarchiver` would need a Swift class for each
/// class they name (`NSEntityDescription`, `NSKeyPathExpression`…); reading the graph as values does not, and an
/// archive of a class nobody here knows still reads.
/// - Note: Immutable; safe to share between threads.
public struct KeyedArchive: Sendable {
    /// A value of the archive: a property-list value, or a reference to an object of `$objects`.
    public indirect enum Value: Sendable, Hashable {
        case null
        case string(String)
        case integer(Int64)
        case real(Double)
        case boolean(Bool)
        case data(Data)
        case date(Date)
        case array([Value])
        case dictionary([String: Value])
        /// A `CF$UID`: the index of an object in `$objects`.
        case reference(Int)
    }

    /// Every object of the archive, by index (`$objects`); index 0 is `$null`.
    public let objects: [Value]
    /// The archive's top-level references by key (`$top`).
    public let top: [String: Value]

    /// Reads an archive from its property list (binary or XML).
    /// - Throws: `KeyedArchive.Error` when the data is not a property list or not a keyed archive.
    public init(data: Data) throws {
        let plist: Any
        do {
            plist = try PropertyListSerialization.propertyList(from: data, format: nil)
        } catch {
            throw Error("not a property list (\(data.count) bytes)")
        }
        guard let dictionary = plist as? [String: Any] else {
            throw Error("the property list is not a dictionary")
        }
        guard let objects = dictionary["$objects"] as? [Any], let top = dictionary["$top"] as? [String: Any] else {
            throw Error("not a keyed archive: no $objects and $top")
        }
        self.objects = try objects.map(Self.value(of:))
        self.top = try top.mapValues(Self.value(of:))
    }

    /// The object under `key` in `$top` (an archive made with `archivedData(withRootObject:)` keeps it under
    /// "root").
    /// - Throws: `KeyedArchive.Error` when there is none.
    public func root(_ key: String = "root") throws -> Object {
        guard let value = top[key], let object = object(value) else {
            throw Error("the archive has no top-level object \"\(key)\"")
        }
        return object
    }

    /// The object a value refers to; nil for `$null` and for a value that is not a reference to a dictionary
    /// object.
    public func object(_ value: Value) -> Object? {
        guard case .reference(let index) = value, index > 0, index < objects.count else { return nil }
        return Object(archive: self, index: index)
    }

    /// A value with references to plain values (strings, numbers, data) resolved; references to objects stay.
    public func resolved(_ value: Value) -> Value {
        guard case .reference(let index) = value, index < objects.count else { return value }
        if index == 0 { return .null }
        if case .dictionary = objects[index] { return value }
        return objects[index]
    }

    // MARK: - Reading the property list

    private static func value(of plist: Any) throws -> Value {
        switch plist {
        case let string as String: return .string(string)
        case let data as Data: return .data(data)
        case let date as Date: return .date(date)
        case let array as [Any]: return .array(try array.map(value(of:)))
        case let dictionary as [String: Any]:
            // An XML archive spells a reference as a dictionary holding only CF$UID.
            if dictionary.count == 1, let uid = dictionary["CF$UID"] as? NSNumber { return .reference(uid.intValue) }
            return .dictionary(try dictionary.mapValues(value(of:)))
        // Foundation on Linux hands a property list's booleans over as Swift's Bool, and its integers as NSNumber
        // (which a cast to Bool also accepts): only the dynamic type tells them apart.
        case let flag as Bool where Swift.type(of: plist) == Bool.self:
            return .boolean(flag)
        case let number as NSNumber:
            if let uid = uidIndex(of: number) { return .reference(uid) }
            let type = String(cString: number.objCType)
            if type == "d" || type == "f" { return .real(number.doubleValue) }
            return .integer(number.int64Value)
        default:
            if let uid = uidIndex(of: plist) { return .reference(uid) }
            throw Error("unexpected property-list value of type \(Swift.type(of: plist))")
        }
    }

    /// The index a binary property list's UID holds.
    ///
    /// Foundation on Linux reads a UID as an instance of its internal `_NSKeyedArchiverUID` class, whose index is
    /// a stored property named `value` and is not public: reflection reads it. A test over real archives
    /// (`KeyedArchiveTests`) fails if a later Foundation changes that.
    private static func uidIndex(of object: Any) -> Int? {
        guard isUID(object) else { return nil }
        for child in Mirror(reflecting: object).children where child.label == "value" {
            if let value = child.value as? UInt32 { return Int(value) }
            if let value = child.value as? Int { return value }
            if let value = child.value as? UInt64 { return Int(value) }
        }
        return nil
    }

    /// Which dynamic types are Foundation's UID class, by type: naming a type is slow, and an archive of a model
    /// holds tens of thousands of numbers.
    private static let uidTypes = Mutex<[ObjectIdentifier: Bool]>([:])

    private static func isUID(_ object: Any) -> Bool {
        let type = Swift.type(of: object)
        let key = ObjectIdentifier(type)
        if let known = uidTypes.withLock({ $0[key] }) { return known }
        let answer = String(describing: type).contains("KeyedArchiverUID")
        uidTypes.withLock { $0[key] = answer }
        return answer
    }

    // MARK: - Objects

    /// One object of the archive: a dictionary of keyed values with its class.
    public struct Object: Sendable {
        /// The archive the object belongs to.
        public let archive: KeyedArchive
        /// The object's index in `$objects`.
        public let index: Int

        private var fields: [String: Value] {
            if case .dictionary(let fields) = archive.objects[index] { return fields }
            return [:]
        }

        /// The class the object was archived as (`$classname` of its `$class`), such as `NSEntityDescription`.
        public var className: String? {
            guard let classObject = fields["$class"].flatMap(archive.object),
                case .string(let name)? = classObject.fields["$classname"]
            else { return nil }
            return name
        }

        /// The classes of the object, most specific first (`$classes` of its `$class`).
        public var classNames: [String] {
            guard let classObject = fields["$class"].flatMap(archive.object),
                case .array(let names)? = classObject.fields["$classes"]
            else { return [] }
            return names.compactMap { if case .string(let name) = $0 { return name } else { return nil } }
        }

        /// The keys the object holds, without `$class`.
        public var keys: [String] { fields.keys.filter { $0 != "$class" }.sorted() }

        /// The raw value under `key`, nil when the key is absent.
        public subscript(key: String) -> Value? { fields[key] }

        /// The object `key` refers to.
        public func object(_ key: String) -> Object? { fields[key].flatMap(archive.object) }

        /// The value under `key` with a reference to a plain value resolved (`$null` reads as nil).
        public func plain(_ key: String) -> Value? {
            guard let value = fields[key] else { return nil }
            let resolved = archive.resolved(value)
            return resolved == .null ? nil : resolved
        }

        /// The string under `key`: a plain string, or an `NSString`/`NSMutableString` object (`NS.string`).
        public func string(_ key: String) -> String? {
            switch plain(key) {
            case .string(let text)?: return text
            case .reference?: return object(key)?.stringValue
            default: return nil
            }
        }

        /// The number under `key` as an integer (a boolean reads as 0 or 1).
        public func integer(_ key: String) -> Int64? {
            switch plain(key) {
            case .integer(let value)?: return value
            case .boolean(let value)?: return value ? 1 : 0
            case .real(let value)?: return Int64(exactly: value)
            default: return nil
            }
        }

        /// The value under `key` as a boolean; nil when absent.
        public func boolean(_ key: String) -> Bool? {
            switch plain(key) {
            case .boolean(let value)?: return value
            case .integer(let value)?: return value != 0
            default: return nil
            }
        }

        /// The data under `key`: plain data, or an `NSData` object (`NS.data`).
        public func data(_ key: String) -> Data? {
            switch plain(key) {
            case .data(let data)?: return data
            case .reference?: return object(key)?.dataValue
            default: return nil
            }
        }

        /// The object as a string, when it is an `NSString` or `NSMutableString` archive.
        public var stringValue: String? {
            if case .string(let text)? = fields["NS.string"] { return text }
            if case .data(let bytes)? = fields["NS.bytes"] { return String(data: bytes, encoding: .utf8) }
            return nil
        }

        /// The object as data, when it is an `NSData` or `NSMutableData` archive.
        public var dataValue: Data? {
            if case .data(let data)? = fields["NS.data"] { return data }
            return nil
        }

        /// The elements of an array or set archive (`NS.objects`), references left for the caller to resolve.
        public var elements: [Value]? {
            guard case .array(let values)? = fields["NS.objects"] else { return nil }
            return values
        }

        /// The entries of a dictionary archive (`NS.keys` and `NS.objects`), keys read as strings, or of Core
        /// Data's known-keys dictionary (`NSKnownKeysDictionary1`: `values` by the keys of its `searchMapping`).
        public var entries: [(key: String, value: Value)]? {
            if case .array(let keys)? = fields["NS.keys"], case .array(let values)? = fields["NS.objects"] {
                return zip(keys, values).compactMap { key, value in
                    keyString(key).map { ($0, value) }
                }
            }
            if let values = object("values")?.elements, let keys = object("searchMapping")?.object("keys")?.elements {
                return zip(keys, values).compactMap { key, value in
                    keyString(key).map { ($0, value) }
                }
            }
            return nil
        }

        private func keyString(_ key: Value) -> String? {
            switch archive.resolved(key) {
            case .string(let text): return text
            case .reference: return archive.object(key)?.stringValue
            default: return nil
            }
        }
    }

    /// A keyed archive that cannot be read, with what is wrong.
    public struct Error: Swift.Error, CustomStringConvertible, Sendable {
        /// What is wrong.
        public let message: String

        init(_ message: String) { self.message = message }

        public var description: String { "keyed archive: \(message)" }
    }
}
