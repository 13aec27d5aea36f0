import Foundation

extension RatioComparison {
    /// The most repetitions `repetitionsNeeded` names; an estimate beyond it is left out (nil).
    public static let repetitionsLimit = 1000

    /// The fewest runs a side (unpaired) or pairs with any interval at `confidence`: 4 a side and 6 pairs at 95%.
    public static func fewestRuns(_ pairing: Pairing, confidence: Double = 0.95) -> Int {
        let outside = 1 - confidence
        var n = 1
        switch pairing {
        case .paired:
            // The two extreme sign patterns of n pairs: 2 · 2⁻ⁿ.
            while 2 / Foundation.pow(2, Double(n)) > outside { n += 1 }
        case .unpaired:
            // The two extreme orders of n and n runs: 2 / C(2n, n).
            while 2 / binomial(2 * n, n) > outside { n += 1 }
        }
        return n
    }

    /// The runs (a side, or pairs) that would likely resolve an unresolved comparison: the interval's half-width
    /// shrinks as 1/√n, and it must fit between the estimate and the nearer edge of the band (inside it, for
    /// *same*; beyond it, for *faster* or *slower*). Without an interval the half-width is predicted from the
    /// runs' spread (`spread`, on the ratio's scale): z · σ · √(π/3) · √(1/n) paired, √(2/n) for n runs a side,
    /// the Hodges–Lehmann estimate's large-sample width.
    /// - Returns: nil when the estimate sits on the band's edge (within 0.2 points), there is no spread to go on,
    ///   or it would take more than `repetitionsLimit`.
    static func repetitionsNeeded(
        change: Double, interval: ClosedRange<Double>?, runs: Int, spread: Double?, pairing: Pairing,
        threshold: Double, confidence: Double
    ) -> Int? {
        let gap = abs(abs(change) - threshold)
        guard gap.isFinite, gap > 0.002 else { return nil }
        let needed: Double
        if let interval {
            let halfWidth = (interval.upperBound - interval.lowerBound) / 2
            needed = Double(runs) * (halfWidth / gap) * (halfWidth / gap)
        } else if let spread {
            let z = HodgesLehmann.normalQuantile(1 - (1 - confidence) / 2)
            let width = z * spread * (Double.pi / 3).squareRoot() / gap
            needed = width * width * (pairing == .paired ? 1 : 2)
        } else {
            return nil
        }
        guard needed.isFinite, needed <= Double(repetitionsLimit) else { return nil }
        return max(Int(needed.rounded(.up)), runs + 1, fewestRuns(pairing, confidence: confidence))
    }

    private static func binomial(_ n: Int, _ k: Int) -> Double {
        (0..<k).reduce(1.0) { $0 * Double(n - $1) / Double($1 + 1) }
    }
}
