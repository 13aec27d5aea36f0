import Foundation

/// What a typed read of a number, Boolean or date attribute found, with no reference-counted payload: a scalar
/// property converts it in place (a `StoreValue` cost an outlined copy, a conversion call and two outlined
/// destroys per read).
@usableFromInline
enum TypedScalarRead {
    case integer(Int64)
    case double(Double)
    case boolean(Bool)
    /// A date, as seconds since the reference date.
    case date(Double)
    case null
    /// A value of another kind: the property reads it through `init?(storeValue:)`.
    case other

    /// What `value` holds, as a scalar read.
    @inline(__always)
    init(_ value: borrowing StoreValue) {
        switch value {
        case .integer(let v): self = .integer(v)
        case .double(let v): self = .double(v)
        case .boolean(let v): self = .boolean(v)
        case .date(let v): self = .date(v.timeIntervalSinceReferenceDate)
        case .null: self = .null
        default: self = .other
        }
    }

    /// Whether `value(as:)` converts to `type`: the scalar types, listed beside their conversions (a constant in a
    /// specialised getter).
    @inlinable @inline(__always)
    static func converts<Value>(to type: Value.Type) -> Bool {
        Value.self == Int64.self || Value.self == Int.self || Value.self == Int32.self || Value.self == Int16.self
            || Value.self == Double.self || Value.self == Float.self || Value.self == Bool.self
            || Value.self == Date.self
    }

    /// The value as a `Value` (one of the scalar types), converted as that type's `init?(storeValue:)` converts;
    /// nil when it does not convert, or is nil or `.other`, which the property then reads the general way.
    /// Folded to the one conversion that applies in a specialised getter.
    @inlinable @inline(__always)
    func value<Value>(as type: Value.Type) -> Value? {
        switch self {
        case .integer(let v):
            if Value.self == Int64.self { return unsafeBitCast(v, to: Value.self) }
            if Value.self == Int.self, let exact = Int(exactly: v) { return unsafeBitCast(exact, to: Value.self) }
            if Value.self == Int32.self, let exact = Int32(exactly: v) { return unsafeBitCast(exact, to: Value.self) }
            if Value.self == Int16.self, let exact = Int16(exactly: v) { return unsafeBitCast(exact, to: Value.self) }
            if Value.self == Double.self { return unsafeBitCast(Double(v), to: Value.self) }
            if Value.self == Float.self { return unsafeBitCast(Float(Double(v)), to: Value.self) }
            if Value.self == Bool.self { return unsafeBitCast(v != 0, to: Value.self) }
        case .double(let v):
            if Value.self == Double.self { return unsafeBitCast(v, to: Value.self) }
            if Value.self == Float.self { return unsafeBitCast(Float(v), to: Value.self) }
            if Value.self == Int64.self, let exact = Int64(exactly: v) { return unsafeBitCast(exact, to: Value.self) }
            if Value.self == Int.self, let exact = Int(exactly: v) { return unsafeBitCast(exact, to: Value.self) }
            if Value.self == Int32.self, let exact = Int32(exactly: v) { return unsafeBitCast(exact, to: Value.self) }
            if Value.self == Int16.self, let exact = Int16(exactly: v) { return unsafeBitCast(exact, to: Value.self) }
        case .boolean(let v):
            if Value.self == Bool.self { return unsafeBitCast(v, to: Value.self) }
            if Value.self == Int64.self { return unsafeBitCast(Int64(v ? 1 : 0), to: Value.self) }
            if Value.self == Int.self { return unsafeBitCast(v ? 1 : 0, to: Value.self) }
            if Value.self == Int32.self { return unsafeBitCast(Int32(v ? 1 : 0), to: Value.self) }
            if Value.self == Int16.self { return unsafeBitCast(Int16(v ? 1 : 0), to: Value.self) }
            if Value.self == Double.self { return unsafeBitCast(Double(v ? 1 : 0), to: Value.self) }
            if Value.self == Float.self { return unsafeBitCast(Float(v ? 1 : 0), to: Value.self) }
        case .date(let v):
            if Value.self == Date.self { return unsafeBitCast(Date(timeIntervalSinceReferenceDate: v), to: Value.self) }
        case .null, .other:
            break
        }
        return nil
    }
}
