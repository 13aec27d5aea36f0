/// What a typed read of a string attribute found: a `String` property reads the string without the `StoreValue`
/// around it (wrapping, copying out and releasing it was a retain, a release and two calls per string read).
@usableFromInline
enum TypedStringRead {
    case string(String)
    case null
    /// A value of another kind: the property reads it through `init?(storeValue:)`.
    case other

    /// What `value` holds, as a string read.
    @inline(__always)
    init(_ value: borrowing StoreValue) {
        switch value {
        case .string(let string): self = .string(string)
        case .null: self = .null
        default: self = .other
        }
    }
}
