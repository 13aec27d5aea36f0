import Foundation

extension PropertyExpression {
    // MARK: - Storing a value

    /// A computed value as an attribute of `type` stores it, nil when the attribute cannot hold it without loss:
    /// the one conversion every store applies to an expression's value before it is written.
    ///
    /// For example:
    /// ```swift
    /// PropertyExpression.storedValue(.integer(3), as: .double)    // .double(3)
    /// PropertyExpression.storedValue(.double(3.5), as: .integer32) // nil: a fraction
    /// ```
    /// Values convert as ``AttributeType`` converts any value (an integer to a double, a whole double to an integer
    /// that fits, 0 or 1 to a boolean); a date set on a number is its seconds since the reference date (whole seconds
    /// for an integer), as Core Data's derived `now()` is on a numeric attribute.
    /// - Returns: the value of the attribute's type; `.null` for nil.
    public static func storedValue(_ value: StoreValue, as type: AttributeType) -> StoreValue? {
        guard case .date(let date) = value, type.isNumeric else { return type.coerce(value) }
        let seconds = date.timeIntervalSinceReferenceDate
        return type.coerce(type.isInteger ? .double(seconds.rounded(.towardZero)) : .double(seconds))
    }
}
