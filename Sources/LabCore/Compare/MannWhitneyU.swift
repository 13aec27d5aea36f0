import Foundation

/// The Mann-Whitney U test (Wilcoxon rank-sum): do two samples come from the same distribution?
///
/// Benchmarks repeat a cell only a handful of times, so the p-value is exact for small samples — the
/// permutation distribution of the rank sum, counted with mid-ranks so ties are handled — and uses the
/// normal approximation with tie correction only when the pooled sample is too large to count.
public struct MannWhitneyU: Sendable, Equatable {
    /// U of the first sample: how many (first, second) pairs have the first value greater (ties count ½).
    public let u: Double
    /// The two-sided p-value: the chance, if both samples came from one distribution, of a rank sum at
    /// least this far from its expectation.
    public let pValue: Double
    /// Whether `pValue` was counted exactly (true) or approximated by the normal distribution.
    public let isExact: Bool

    /// Pooled samples up to this size are counted exactly.
    public static let exactLimit = 60

    /// Tests `first` against `second`; both must be non-empty.
    public init(_ first: [Double], _ second: [Double]) {
        precondition(!first.isEmpty && !second.isEmpty, "Mann-Whitney U needs two non-empty samples")
        let pooled = (first.map { ($0, true) } + second.map { ($0, false) }).sorted { $0.0 < $1.0 }
        // Ranks doubled so mid-ranks of ties stay integers and the exact count can index by rank sum.
        var doubledRanks = [Int](repeating: 0, count: pooled.count)
        var start = 0
        while start < pooled.count {
            var end = start
            while end + 1 < pooled.count && pooled[end + 1].0 == pooled[start].0 { end += 1 }
            let doubledMidRank = (start + 1) + (end + 1)
            for index in start...end { doubledRanks[index] = doubledMidRank }
            start = end + 1
        }
        let n1 = first.count
        let n2 = second.count
        let doubledRankSum = zip(pooled, doubledRanks).reduce(0) { $0 + ($1.0.1 ? $1.1 : 0) }
        u = Double(doubledRankSum) / 2 - Double(n1 * (n1 + 1)) / 2
        if pooled.count <= Self.exactLimit {
            pValue = Self.exactPValue(doubledRanks: doubledRanks, sampleSize: n1, observed: doubledRankSum)
            isExact = true
        } else {
            pValue = Self.normalPValue(doubledRanks: doubledRanks, n1: n1, n2: n2, u: u)
            isExact = false
        }
    }

    /// Counts, over every way of choosing `sampleSize` of the ranks, how many give a rank sum at least as
    /// far from the mean as the observed one.
    private static func exactPValue(doubledRanks: [Int], sampleSize: Int, observed: Int) -> Double {
        let total = doubledRanks.reduce(0, +)
        // counts[k][s]: ways to pick k ranks with doubled sum s (Double: the counts outgrow Int64 near 60).
        var counts = [[Double]](repeating: [Double](repeating: 0, count: total + 1), count: sampleSize + 1)
        counts[0][0] = 1
        for rank in doubledRanks {
            for k in stride(from: sampleSize, through: 1, by: -1) {
                let previous = counts[k - 1]
                for sum in stride(from: total, through: rank, by: -1) where previous[sum - rank] != 0 {
                    counts[k][sum] += previous[sum - rank]
                }
            }
        }
        let ways = counts[sampleSize]
        let all = ways.reduce(0, +)
        // |sum − mean| scaled by the pooled size, where mean = total · sampleSize / N, so it stays an integer.
        let distance = { (sum: Int) -> Int in abs(sum * doubledRanks.count - total * sampleSize) }
        let observedDistance = distance(observed)
        var extreme = 0.0
        for (sum, count) in ways.enumerated() where count != 0 && distance(sum) >= observedDistance {
            extreme += count
        }
        return min(1, extreme / all)
    }

    private static func normalPValue(doubledRanks: [Int], n1: Int, n2: Int, u: Double) -> Double {
        let n = Double(n1 + n2)
        let mean = Double(n1 * n2) / 2
        // Tie correction: sum of (t³ - t) over groups of equal ranks.
        var groups: [Int: Int] = [:]
        for rank in doubledRanks { groups[rank, default: 0] += 1 }
        let tieTerm = groups.values.reduce(0.0) { $0 + Double($1 * $1 * $1 - $1) }
        let variance = Double(n1 * n2) / 12 * ((n + 1) - tieTerm / (n * (n - 1)))
        guard variance > 0 else { return 1 }
        let z = max(0, abs(u - mean) - 0.5) / variance.squareRoot()
        return min(1, erfc(z / 2.0.squareRoot()))
    }
}
