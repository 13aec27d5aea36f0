/// Swift Testing prints arguments with `description`; this keeps the test names short (`truncated`, not
/// `Hostile.truncated`) for a string enum used as arguments.
public protocol CustomTestStringConvertibleShim: CustomStringConvertible, RawRepresentable where RawValue == String {}
extension CustomTestStringConvertibleShim {
    public var description: String { rawValue }
}
