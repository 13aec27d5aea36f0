import Foundation

/// The one-sided Wilcoxon signed-rank test: do paired differences lean above zero?
///
/// It decides as SciPy's `scipy.stats.wilcoxon(d, alternative="greater")` with its defaults
/// (`zero_method="wilcox"`, `correction=False`, `method="auto"`), which the startup gate used before it was
/// written in Swift: zero differences are dropped; the rest are ranked by size, ties sharing their mid-rank, and
/// the statistic is the rank sum of the positive ones. The p-value is
/// - exact when there are at most 50 differences and no zero or tie (the null distribution of the rank sum, by
///   counting the 2ⁿ sign patterns);
/// - exact as well with zeros or ties and at most 13 differences (SciPy's permutation test, which with so few
///   enumerates every sign pattern: the same count, over the mid-ranks);
/// - otherwise the normal approximation with the tie correction of the variance and no continuity correction.
///
/// For example, the gate's log ratios of current over base:
/// ```swift
/// let test = WilcoxonSignedRank(greater: ratios.map { log($0) })
/// if test.pValue < 0.01 { /* slower */ }
/// ```
/// - Complexity: O(n log n), and O(n³) for an exact count (n ≤ 50).
public struct WilcoxonSignedRank: Sendable, Equatable {
    /// How the p-value was found.
    public enum Method: String, Sendable {
        /// Counted over every sign pattern.
        case exact
        /// The normal approximation.
        case asymptotic
    }

    /// The rank sum of the positive differences (ties at their mid-rank).
    public let statistic: Double
    /// The one-sided p-value: the chance, if the differences were symmetric around zero, of a rank sum at least
    /// this large. 1 when every difference is zero.
    public let pValue: Double
    /// How `pValue` was found.
    public let method: Method
    /// The differences that counted: the non-zero ones.
    public let count: Int

    /// More differences than this (zeros included) always use the normal approximation, as SciPy's `auto`.
    public static let exactLimit = 50
    /// With a zero or a tie, at most this many differences (zeros included) are still counted exactly.
    public static let permutationLimit = 13

    /// Tests whether `differences` lean above zero; they must not be empty or hold a NaN.
    public init(greater differences: [Double]) {
        precondition(!differences.isEmpty, "the signed-rank test needs at least one difference")
        precondition(!differences.contains { $0.isNaN }, "the signed-rank test cannot rank NaN")
        let nonZero = differences.filter { $0 != 0 }.sorted { abs($0) < abs($1) }
        count = nonZero.count
        // Ranks doubled so the mid-ranks of ties stay integers and the exact count can index by rank sum.
        var doubledRanks = [Int](repeating: 0, count: nonZero.count)
        var tieGroups: [Int] = []
        var start = 0
        while start < nonZero.count {
            var end = start
            while end + 1 < nonZero.count && abs(nonZero[end + 1]) == abs(nonZero[start]) { end += 1 }
            for index in start...end { doubledRanks[index] = (start + 1) + (end + 1) }
            tieGroups.append(end - start + 1)
            start = end + 1
        }
        let observed = zip(nonZero, doubledRanks).reduce(0) { $0 + ($1.0 > 0 ? $1.1 : 0) }
        statistic = Double(observed) / 2
        guard !nonZero.isEmpty else {
            // Nothing leans either way; SciPy would divide by a zero variance, the gate called it p = 1.
            pValue = 1
            method = .exact
            return
        }
        let hasTies = tieGroups.contains { $0 > 1 }
        let hasZeros = nonZero.count < differences.count
        let exact =
            differences.count <= Self.exactLimit
            && (!(hasTies || hasZeros) || differences.count <= Self.permutationLimit)
        if exact {
            pValue = Self.exactPValue(doubledRanks: doubledRanks, observed: observed)
            method = .exact
        } else {
            let n = Double(nonZero.count)
            let mean = n * (n + 1) / 4
            let tieTerm = tieGroups.reduce(0.0) { $0 + Double($1 * $1 * $1 - $1) }
            let standardError = ((n * (n + 1) * (2 * n + 1) - tieTerm / 2) / 24).squareRoot()
            let z = (statistic - mean) / standardError
            pValue = erfc(z / 2.0.squareRoot()) / 2
            method = .asymptotic
        }
    }

    /// The share of the 2ⁿ sign patterns whose positive ranks sum to at least the observed sum.
    private static func exactPValue(doubledRanks: [Int], observed: Int) -> Double {
        let total = doubledRanks.reduce(0, +)
        // ways[s]: sign patterns whose positive doubled ranks sum to s (Double: 2^50 is exact in a Double).
        var ways = [Double](repeating: 0, count: total + 1)
        ways[0] = 1
        for rank in doubledRanks {
            for sum in stride(from: total, through: rank, by: -1) where ways[sum - rank] != 0 {
                ways[sum] += ways[sum - rank]
            }
        }
        let extreme = ways[observed...].reduce(0, +)
        return min(1, extreme / Foundation.pow(2, Double(doubledRanks.count)))
    }
}
