import Foundation

extension AttributeType {
    /// Converts a store value to this type where the conversion loses nothing; nil when it cannot.
    func coerce(_ value: StoreValue) -> StoreValue? {
        switch (self, value) {
        case (_, .null): return .null
        case (.integer16, .integer(let v)), (.integer32, .integer(let v)), (.integer64, .integer(let v)):
            return integerRange!.contains(v) ? value : nil
        case (.integer16, .double(let v)), (.integer32, .double(let v)), (.integer64, .double(let v)):
            guard v.rounded() == v, let exact = Int64(exactly: v), integerRange!.contains(exact) else { return nil }
            return .integer(exact)
        case (.integer16, .boolean(let v)), (.integer32, .boolean(let v)), (.integer64, .boolean(let v)):
            return .integer(v ? 1 : 0)
        case (.double, .integer(let v)), (.float, .integer(let v)): return .double(Double(v))
        case (.double, .double), (.float, .double): return value
        case (.decimal, .decimal): return value
        case (.decimal, .integer(let v)): return .decimal(Decimal(v))
        case (.decimal, .double(let v)): return .decimal(Decimal(v))
        case (.boolean, .boolean): return value
        case (.boolean, .integer(let v)) where v == 0 || v == 1: return .boolean(v == 1)
        case (.string, .string), (.date, .date), (.binaryData, .data), (.uuid, .uuid), (.uri, .uri),
            (.transformable, .data):
            return value
        case (.uuid, .string(let text)): return UUID(uuidString: text).map(StoreValue.uuid)
        case (.uri, .string(let text)): return URL(string: text).map(StoreValue.uri)
        case (.date, .double(let seconds)): return .date(Date(timeIntervalSinceReferenceDate: seconds))
        default: return nil
        }
    }

    /// Converts a Swift value to a store value of this type.
    ///
    /// Accepts every integer and floating-point type, `NSNumber`, `Bool`, `Decimal`, `String`, `Date`, `Data`,
    /// `UUID` and `URL` where they fit the type; integers must fit the attribute's width.
    /// - Returns: nil when the value is not of a fitting type.
    func storeValue(from value: Any?) -> StoreValue? {
        guard let value, !(value is NSNull) else { return .null }
        if let raw = value as? StoreValue { return coerce(raw) }
        let converted: StoreValue
        switch value {
        case let v as Bool where self == .boolean: converted = .boolean(v)
        case let v as Decimal: converted = .decimal(v)
        case let v as Int: converted = .integer(Int64(v))
        case let v as Int8: converted = .integer(Int64(v))
        case let v as Int16: converted = .integer(Int64(v))
        case let v as Int32: converted = .integer(Int64(v))
        case let v as Int64: converted = .integer(v)
        case let v as UInt8: converted = .integer(Int64(v))
        case let v as UInt16: converted = .integer(Int64(v))
        case let v as UInt32: converted = .integer(Int64(v))
        case let v as UInt:
            guard let exact = Int64(exactly: v) else { return nil }
            converted = .integer(exact)
        case let v as UInt64:
            guard let exact = Int64(exactly: v) else { return nil }
            converted = .integer(exact)
        case let v as Double: converted = .double(v)
        case let v as Float: converted = .double(Double(v))
        case let v as Bool: converted = .boolean(v)
        case let v as String: converted = .string(v)
        case let v as Substring: converted = .string(String(v))
        case let v as Date: converted = .date(v)
        case let v as Data: converted = .data(v)
        case let v as [UInt8]: converted = .data(Data(v))
        case let v as UUID: converted = .uuid(v)
        case let v as URL: converted = .uri(v)
        // Checked last: Swift numbers bridge to NSNumber on Linux too, and would lose their exact type.
        case let v as NSNumber: converted = Self.number(v)
        default: return nil
        }
        // A string is not silently taken for a UUID or URL attribute: the caller meant another type.
        if case .string = converted, self == .uuid || self == .uri { return nil }
        return coerce(converted)
    }

    private static func number(_ number: NSNumber) -> StoreValue {
        switch String(cString: number.objCType) {
        case "f", "d": return .double(number.doubleValue)
        default: return .integer(number.int64Value)
        }
    }

    /// The Swift value for a store value of this type, as `value(forKey:)` returns it.
    ///
    /// Numbers come back as `NSNumber` (so `as? Int`, `as? Int16` and `as? Double` all work, as in Core Data),
    /// booleans as `Bool`, and the other types as their Foundation types; nil for `.null`.
    func object(from value: StoreValue) -> Any? {
        switch value {
        case .null: return nil
        case .integer(let v): return self == .boolean ? v != 0 : NSNumber(value: v)
        case .double(let v): return self == .float ? NSNumber(value: Float(v)) : NSNumber(value: v)
        case .decimal(let v): return v
        case .boolean(let v): return v
        case .string(let v): return v
        case .date(let v): return v
        case .data(let v): return v
        case .uuid(let v): return v
        case .uri(let v): return v
        case .objectID(let v): return v
        }
    }
}
