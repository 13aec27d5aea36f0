import Foundation

/// How a figure's numbers are written in prose: scaled, rounded and separated as the sentence around them needs.
///
/// By default a number keeps two significant digits and never loses an integer digit (`0.74`, `5.2`, `125`,
/// `55,542`), and a whole number is written whole (`3`); `dp` fixes the decimals instead, `round` rounds to a multiple (`667,000`), `div` scales (milliseconds
/// to seconds with `div=1000`). Integers of four digits or more get thousands separators.
///
/// For example:
/// ```swift
/// var format = FigureFormat()
/// format.divisor = 1_000
/// format.text(743.6)  // "0.74"
/// ```
public struct FigureFormat: Sendable, Equatable {
    /// Significant digits, unless `decimals` is set; the integer part is never rounded away.
    public var significantDigits = 2
    /// Fixed digits after the decimal point, instead of significant digits.
    public var decimals: Int?
    /// The value is divided by this before it is written (`1000`: milliseconds as seconds).
    public var divisor = 1.0
    /// The value is rounded to a multiple of this, after dividing (`1000`: thousands).
    public var multiple: Double?
    /// Whether integers of four digits or more get thousands separators.
    public var separatesThousands = true

    /// The default: two significant digits, nothing scaled.
    public init() {}

    /// `value` as prose writes it.
    public func text(_ value: Double) -> String {
        var value = value / divisor
        if let multiple, multiple > 0 { value = (value / multiple).rounded() * multiple }
        let digits: Int
        if let decimals {
            digits = decimals
        } else if value == value.rounded() || multiple != nil {
            // A whole number (a count, a sum of flags) is written whole: `3`, not `3.0`.
            digits = 0
        } else {
            digits = max(0, significantDigits - 1 - Int(floor(log10(abs(value)))))
        }
        let text = String(format: "%.\(digits)f", value)
        return separatesThousands ? Self.separated(text) : text
    }

    /// `text` with a comma every three digits of its integer part, from four digits on (`55542.5` → `55,542.5`).
    static func separated(_ text: String) -> String {
        let negative = text.hasPrefix("-")
        let unsigned = negative ? String(text.dropFirst()) : text
        let parts = unsigned.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let integer = String(parts[0])
        guard integer.count > 3 else { return text }
        var grouped = ""
        for (index, digit) in integer.enumerated() {
            if index > 0, (integer.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return (negative ? "-" : "") + grouped + (parts.count > 1 ? "." + parts[1] : "")
    }
}
