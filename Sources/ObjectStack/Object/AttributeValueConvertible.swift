import Foundation

/// A Swift type a typed `@Attribute` property can have: it converts to and from a store value.
public protocol AttributeValueConvertible {
    /// The value for a store value; nil when the store value is nil or of another kind.
    init?(storeValue: StoreValue)
    /// The store value for this value.
    var storeValue: StoreValue { get }
    /// What a nil stored value reads as for a non-optional property, so that reading an unset value never
    /// traps: numbers 0 and booleans false (as Core Data's scalar properties), and an empty or zero value for
    /// the object types. A conforming type of your own returns nil to make such a read a programming error.
    static var valueForNil: Self? { get }
}

extension AttributeValueConvertible {
    public static var valueForNil: Self? { nil }
}

extension Optional: AttributeValueConvertible where Wrapped: AttributeValueConvertible {
    @inlinable
    public init?(storeValue: StoreValue) {
        self = storeValue.isNull ? .none : Wrapped(storeValue: storeValue)
    }
    @inlinable
    public var storeValue: StoreValue { self?.storeValue ?? .null }
    @inlinable
    public static var valueForNil: Self? { .some(.none) }
}

/// Integers of every width read from `.integer` (and booleans); a value that does not fit reads as nil.
extension AttributeValueConvertible where Self: FixedWidthInteger {
    @inlinable
    public init?(storeValue: StoreValue) {
        switch storeValue {
        case .integer(let v):
            guard let exact = Self(exactly: v) else { return nil }
            self = exact
        case .boolean(let v): self = v ? 1 : 0
        case .double(let v):
            guard let exact = Self(exactly: v) else { return nil }
            self = exact
        default: return nil
        }
    }
    @inlinable
    public var storeValue: StoreValue { .integer(Int64(self)) }
    @inlinable
    public static var valueForNil: Self? { 0 }
}

extension Int: AttributeValueConvertible {}
extension Int16: AttributeValueConvertible {}
extension Int32: AttributeValueConvertible {}
extension Int64: AttributeValueConvertible {}

extension Double: AttributeValueConvertible {
    @inlinable
    public init?(storeValue: StoreValue) {
        guard let number = storeValue.numericValue else { return nil }
        self = number
    }
    @inlinable
    public var storeValue: StoreValue { .double(self) }
    @inlinable
    public static var valueForNil: Double? { 0 }
}

extension Float: AttributeValueConvertible {
    @inlinable
    public init?(storeValue: StoreValue) {
        guard let number = storeValue.numericValue else { return nil }
        self = Float(number)
    }
    @inlinable
    public var storeValue: StoreValue { .double(Double(self)) }
    @inlinable
    public static var valueForNil: Float? { 0 }
}

extension Bool: AttributeValueConvertible {
    @inlinable
    public init?(storeValue: StoreValue) {
        switch storeValue {
        case .boolean(let v): self = v
        case .integer(let v): self = v != 0
        default: return nil
        }
    }
    @inlinable
    public var storeValue: StoreValue { .boolean(self) }
    @inlinable
    public static var valueForNil: Bool? { false }
}

extension Decimal: AttributeValueConvertible {
    public init?(storeValue: StoreValue) {
        switch storeValue {
        case .decimal(let v): self = v
        case .integer(let v): self = Decimal(v)
        case .double(let v): self = Decimal(v)
        default: return nil
        }
    }
    @inlinable
    public var storeValue: StoreValue { .decimal(self) }
    public static var valueForNil: Decimal? { 0 }
}

extension String: AttributeValueConvertible {
    @inlinable
    public init?(storeValue: StoreValue) {
        guard case .string(let v) = storeValue else { return nil }
        self = v
    }
    @inlinable
    public var storeValue: StoreValue { .string(self) }
    /// The empty string, as Swift's bridging reads a nil `NSString` into a non-optional `String`.
    @inlinable
    public static var valueForNil: String? { "" }
}

extension Date: AttributeValueConvertible {
    @inlinable
    public init?(storeValue: StoreValue) {
        guard case .date(let v) = storeValue else { return nil }
        self = v
    }
    @inlinable
    public var storeValue: StoreValue { .date(self) }
    /// The reference date (2001-01-01 00:00:00 UTC): what Core Data's scalar date (a `TimeInterval`) reads
    /// for nil.
    public static var valueForNil: Date? { Date(timeIntervalSinceReferenceDate: 0) }
}

extension Data: AttributeValueConvertible {
    public init?(storeValue: StoreValue) {
        guard case .data(let v) = storeValue else { return nil }
        self = v
    }
    @inlinable
    public var storeValue: StoreValue { .data(self) }
    /// Empty data, as Swift's bridging reads a nil `NSData` into a non-optional `Data`.
    public static var valueForNil: Data? { Data() }
}

extension UUID: AttributeValueConvertible {
    public init?(storeValue: StoreValue) {
        guard case .uuid(let v) = storeValue else { return nil }
        self = v
    }
    @inlinable
    public var storeValue: StoreValue { .uuid(self) }
    /// The nil UUID of RFC 4122 (all zero bits).
    public static var valueForNil: UUID? { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
}

extension URL: AttributeValueConvertible {
    public init?(storeValue: StoreValue) {
        guard case .uri(let v) = storeValue else { return nil }
        self = v
    }
    @inlinable
    public var storeValue: StoreValue { .uri(self) }
    /// `about:blank`, the URL of nothing.
    public static var valueForNil: URL? { URL(string: "about:blank") }
}
