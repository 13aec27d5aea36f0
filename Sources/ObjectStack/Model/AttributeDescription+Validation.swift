import Foundation

extension AttributeDescription {
    /// Whether the attribute has a minimum, a maximum or a regular expression to check at save.
    var hasValueConstraints: Bool {
        minimumValue != nil || maximumValue != nil || regularExpression != nil
    }

    /// What is wrong with a value under the attribute's minimum, maximum and regular expression, or nil.
    ///
    /// As in Core Data: numbers are checked by value, strings and data by length; nil is left to the
    /// optionality check.
    func constraintViolation(of value: StoreValue) -> (reason: ValidationFailure.Reason, message: String)? {
        let measured: Double?
        let what: String
        switch value {
        case .string(let text):
            measured = Double(text.count)
            what = "length"
        case .data(let data):
            measured = Double(data.count)
            what = "length"
        case .date(let date):
            measured = date.timeIntervalSinceReferenceDate
            what = "date (seconds since 2001)"
        default:
            measured = value.numericValue
            what = "value"
        }
        if let measured {
            if let minimumValue, measured < minimumValue {
                return (
                    .outOfRange,
                    "has \(what) \(Self.format(measured)), below its minimum of \(Self.format(minimumValue))"
                )
            }
            if let maximumValue, measured > maximumValue {
                return (
                    .outOfRange,
                    "has \(what) \(Self.format(measured)), above its maximum of \(Self.format(maximumValue))"
                )
            }
        }
        if let regularExpression, case .string(let text) = value,
            text.range(of: "^(?:\(regularExpression))$", options: .regularExpression) == nil
        {
            return (.patternMismatch, "value \"\(text)\" does not match the regular expression \(regularExpression)")
        }
        return nil
    }

    private static func format(_ number: Double) -> String {
        number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    }
}
