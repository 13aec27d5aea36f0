import Foundation

/// One metric compared between a base and a current sample: the ratio current/base with its confidence
/// interval, and what the interval concludes against a threshold band.
///
/// The ratio is the Hodges–Lehmann estimate (`HodgesLehmann`) of the shift of the logarithms, turned back into a
/// ratio: from the k-th run of each side when the runs were paired (they ran side by side), from every run of
/// one side against every run of the other when not. Where a value is zero or negative (a count, a flag) the
/// shift is taken on the values themselves and read against the base median's size instead (its mean size when the
/// median is 0; a shift from a base of zeros is infinite).
///
/// The verdict (`ComparisonVerdict`), with t the threshold:
/// - *faster* or *slower* when the whole interval lies beyond 1 ± t, by the metric's declared direction;
///   *changed* for a count or setting, which has none;
/// - *same* when the whole interval lies inside (1 − t, 1 + t);
/// - *unresolved* otherwise, or when the repetitions are too few for an interval (`repetitionsNeeded` says how
///   many would likely resolve it).
///
/// For example:
/// ```swift
/// let stall = RatioComparison(base: [14, 15, 13, 16], current: [3.5, 3.9, 3.1, 4.0], polarity: .lowerIsBetter)
/// stall.verdict    // .faster
/// stall.interval   // 0.21...0.31
/// ```
public struct RatioComparison: Sendable, Equatable {
    /// Whether the k-th runs of the two sides belong together.
    public enum Pairing: String, Sendable {
        /// The k-th run of each side ran side by side (`compare --paired`, the startup gate).
        case paired
        /// Independent samples (two runs of a scenario, two strategies of one run).
        case unpaired
    }

    /// How the sides' values were compared.
    public let pairing: Pairing
    /// current/base, the Hodges–Lehmann estimate; nil when a side has no values.
    public let ratio: Double?
    /// The ratio's confidence interval; nil when a side has no values or the runs are too few for one.
    public let interval: ClosedRange<Double>?
    /// The interval's confidence (0.95).
    public let confidence: Double
    /// The band's half-width (0.10 = ±10%).
    public let threshold: Double
    /// Which way the metric gets better.
    public let polarity: MetricPolarity
    /// Values on each side (for paired runs, the pairs, on both).
    public let baseCount: Int
    public let currentCount: Int
    /// What the interval concludes.
    public let verdict: ComparisonVerdict
    /// For an unresolved verdict: the repetitions (a side, or pairs) that would likely resolve it, from the interval's
    /// width (or the runs' spread, without one) shrinking as 1/√n; nil when the estimate sits on the band's edge,
    /// or a side has a single run and so no spread to go on.
    public let repetitionsNeeded: Int?
    /// Why the verdict is unresolved, when it is for a reason besides the width: too few runs, no values on a side.
    public let note: String

    /// The estimated change, ratio − 1 (+0.08 is 8% larger on the current side).
    public var change: Double? { ratio.map { $0 - 1 } }

    /// The smallest band the interval lies inside: "the same within ±m" (0.07 = 7%); nil without an interval.
    public var sameWithin: Double? {
        interval.map { max(abs($0.lowerBound - 1), abs($0.upperBound - 1)) }
    }

    /// Compares `current` with `base`; paired runs are matched in order, and a longer side's extra runs are left out.
    public init(
        base: [Double], current: [Double], pairing: Pairing = .unpaired, polarity: MetricPolarity,
        threshold: Double = 0.10, confidence: Double = 0.95
    ) {
        self.pairing = pairing
        self.polarity = polarity
        self.threshold = threshold
        self.confidence = confidence
        var base = base.filter(\.isFinite)
        var current = current.filter(\.isFinite)
        if pairing == .paired {
            let pairs = min(base.count, current.count)
            base = Array(base.prefix(pairs))
            current = Array(current.prefix(pairs))
        }
        baseCount = base.count
        currentCount = current.count
        guard !base.isEmpty, !current.isEmpty else {
            ratio = nil
            interval = nil
            verdict = .unresolved
            repetitionsNeeded = nil
            note =
                base.isEmpty && current.isEmpty ? "no values" : (base.isEmpty ? "no base values" : "no current values")
            return
        }
        let scale = Scale(base: base, current: current)
        let shift: HodgesLehmann
        let spread: Double?
        switch pairing {
        case .paired:
            let differences = zip(base, current).map { scale.difference(from: $0, to: $1) }
            shift = HodgesLehmann(paired: differences, confidence: confidence)
            spread = Self.standardDeviation(differences)
        case .unpaired:
            let (first, second) = (base.map(scale.value), current.map(scale.value))
            shift = HodgesLehmann(from: first, to: second, confidence: confidence)
            spread = Self.pooledStandardDeviation(first, second)
        }
        let ratio = shift.estimate.map(scale.ratio)
        let interval = shift.interval.map { scale.ratio($0.lowerBound)...scale.ratio($0.upperBound) }
        self.ratio = ratio
        self.interval = interval
        verdict = Self.verdict(interval, polarity: polarity, threshold: threshold)
        guard verdict == .unresolved, let ratio else {
            repetitionsNeeded = nil
            note = ""
            return
        }
        let runs = pairing == .paired ? base.count : min(base.count, current.count)
        repetitionsNeeded = Self.repetitionsNeeded(
            change: ratio - 1, interval: interval, runs: runs, spread: spread.map { $0 * scale.unit }, pairing: pairing,
            threshold: threshold, confidence: confidence)
        if interval == nil {
            let side = pairing == .paired ? "\(base.count) pairs" : "\(base.count) and \(current.count) runs"
            note = "\(side): too few for a \(Self.percent(confidence)) interval"
        } else {
            note = ""
        }
    }

    /// The verdict an interval of the ratio gives against the band 1 ± `threshold`.
    static func verdict(_ interval: ClosedRange<Double>?, polarity: MetricPolarity, threshold: Double)
        -> ComparisonVerdict
    {
        guard let interval else { return .unresolved }
        if interval.lowerBound > 1 - threshold, interval.upperBound < 1 + threshold { return .same }
        let larger = interval.lowerBound >= 1 + threshold
        let smaller = interval.upperBound <= 1 - threshold
        guard larger || smaller else { return .unresolved }
        switch polarity {
        case .lowerIsBetter: return larger ? .slower : .faster
        case .higherIsBetter: return larger ? .faster : .slower
        case .neutral: return .changed
        }
    }

    /// `95%` for 0.95.
    static func percent(_ fraction: Double) -> String { String(format: "%g%%", fraction * 100) }
}

extension RatioComparison {
    /// Where the shift is taken: on the logarithms when every value is positive (a ratio), else on the values,
    /// read against the base median's size.
    struct Scale {
        /// The base median's size, for values taken as they are; nil on the logarithms.
        let reference: Double?

        init(base: [Double], current: [Double]) {
            guard !(base + current).allSatisfy({ $0 > 0 }) else {
                reference = nil
                return
            }
            // The base median's size; where that is 0 but some base runs are not (a wait that is mostly nothing),
            // their mean size, so the ratio stays finite. Only a base of zeros makes a shift infinite.
            let median = abs(base.median ?? 0)
            reference = median > 0 ? median : base.reduce(0) { $0 + abs($1) } / Double(max(base.count, 1))
        }

        /// One value on the scale the shift is taken on.
        func value(_ x: Double) -> Double { reference == nil ? Foundation.log(x) : x }

        /// A pair's difference on that scale.
        func difference(from base: Double, to current: Double) -> Double { value(current) - value(base) }

        /// A shift on that scale as a ratio current/base (±∞ for a shift from a base of 0).
        func ratio(_ shift: Double) -> Double {
            guard let reference else { return Foundation.exp(shift) }
            guard reference > 0 else { return shift == 0 ? 1 : (shift > 0 ? .infinity : -.infinity) }
            return 1 + shift / reference
        }

        /// A spread on that scale in units of the ratio (a log spread is one already, for small changes).
        var unit: Double {
            guard let reference else { return 1 }
            return reference > 0 ? 1 / reference : .infinity
        }
    }

    static func standardDeviation(_ values: [Double]) -> Double? {
        guard values.count >= 2 else { return nil }
        let mean = values.reduce(0, +) / Double(values.count)
        return (values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count - 1)).squareRoot()
    }

    /// The spread within the two samples together, from whichever has two values or more.
    static func pooledStandardDeviation(_ first: [Double], _ second: [Double]) -> Double? {
        let variances = [first, second].compactMap { standardDeviation($0).map { $0 * $0 } }
        guard !variances.isEmpty else { return nil }
        return (variances.reduce(0, +) / Double(variances.count)).squareRoot()
    }
}
