import Foundation

/// One axis of a report chart: maps values to pixels, linearly or by their logarithm, and says where its ticks go.
///
/// A log axis spans whole decades and puts its labelled ticks on the powers of ten, as matplotlib's log
/// axes do; a linear one starts at zero (the charts' linear axes are throughputs) and steps by 1, 2 or 5 times a
/// power of ten.
public struct ChartScale: Sendable, Equatable {
    /// The value at the axis's start and at its end.
    public let lower: Double
    public let upper: Double
    public let isLog: Bool
    /// The pixel of `lower` and of `upper` (for a y axis the first is the bottom).
    public let start: Double
    public let end: Double

    /// An axis through `values` (non-positive ones are left out of a log axis, which cannot show them).
    public init(values: [Double], log: Bool, from start: Double, to end: Double) {
        self.isLog = log
        self.start = start
        self.end = end
        let finite = values.filter { $0.isFinite && (!log || $0 > 0) }
        if log {
            let low = finite.min() ?? 1
            let high = finite.max() ?? 10
            let lowExponent = Foundation.floor(Foundation.log10(low))
            // At least one decade, also when every value is the same power of ten.
            let highExponent = Swift.max(Foundation.ceil(Foundation.log10(high)), lowExponent + 1)
            lower = Foundation.pow(10, lowExponent)
            upper = Foundation.pow(10, highExponent)
        } else {
            let high = Swift.max(finite.max() ?? 1, 0)
            let step = Self.step(for: high > 0 ? high : 1)
            lower = Swift.min(finite.min() ?? 0, 0)
            upper = Foundation.ceil((high > 0 ? high * 1.05 : 1) / step) * step
        }
    }

    /// The pixel of `value`.
    public func position(_ value: Double) -> Double {
        let fraction: Double
        if isLog {
            let clamped = Swift.max(value, lower / 10)
            fraction =
                (Foundation.log10(clamped) - Foundation.log10(lower))
                / (Foundation.log10(upper) - Foundation.log10(lower))
        } else {
            fraction = (value - lower) / (upper - lower)
        }
        return start + (end - start) * fraction
    }

    /// The labelled ticks: the powers of ten of a log axis, or the steps of a linear one.
    public var ticks: [Double] {
        if isLog {
            let first = Int(Foundation.log10(lower).rounded())
            let last = Int(Foundation.log10(upper).rounded())
            return (first...last).map { Foundation.pow(10, Double($0)) }
        }
        let step = Self.step(for: upper)
        return stride(from: lower, through: upper + step / 1000, by: step).map { $0 }
    }

    /// Unlabelled grid lines between a log axis's powers of ten (2× and 5×), none on a linear axis.
    public var minorTicks: [Double] {
        guard isLog else { return [] }
        return ticks.dropLast().flatMap { [2 * $0, 5 * $0] }
    }

    /// A tick step of 1, 2 or 5 times a power of ten that divides `span` into four to ten parts.
    static func step(for span: Double) -> Double {
        let raw = span / 5
        let power = Foundation.pow(10, Foundation.floor(Foundation.log10(raw)))
        let fraction = raw / power
        return (fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10) * power
    }

    /// 1234 → 1.23k, 100000 → 100k, 0.042 → 0.042: tick labels that fit.
    public static func short(_ value: Double) -> String {
        let magnitude = abs(value)
        func trimmed(_ number: Double, _ suffix: String) -> String {
            var text = String(format: "%.3g", number)
            if text.contains("e") { text = String(format: "%.0f", number) }
            return text + suffix
        }
        if magnitude >= 1e6 { return trimmed(value / 1e6, "M") }
        if magnitude >= 1e4 { return trimmed(value / 1e3, "k") }
        if magnitude >= 100 { return String(format: "%.0f", value) }
        return trimmed(value, "")
    }
}
