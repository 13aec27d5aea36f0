import Foundation

/// The Hodges–Lehmann estimate of a shift and its distribution-free confidence interval: the interval the
/// Wilcoxon signed-rank test (paired differences) or rank-sum test (two samples) does not reject, as R's
/// `wilcox.test(conf.int = TRUE)` computes it.
///
/// - Paired: the estimate is the median of the n(n+1)/2 Walsh averages (dᵢ + dⱼ)/2, i ≤ j, and the interval
///   runs from the k-th smallest to the k-th largest of them.
/// - Two samples: the estimate is the median of the n·m differences yⱼ − xᵢ (how far the second sample lies
///   above the first), and the interval runs from the k-th smallest to the k-th largest of them.
///
/// k is the largest number with P(T ≤ k − 1) ≤ (1 − confidence)/2 under the test's null distribution (no
/// ties), so the interval covers the true shift at least `confidence` of the time whatever the distribution,
/// as long as it is continuous and (paired) symmetric. When even k = 1 leaves more than that outside — five
/// pairs or fewer, or fewer than four values a side at 95% — there is no interval: too few repetitions to say.
/// The null distribution is counted exactly up to `exactLimit` (pairs, or both samples together) and
/// approximated by the normal distribution beyond.
///
/// For example, the log ratios of ten paired runs:
/// ```swift
/// let shift = HodgesLehmann(paired: logRatios)
/// if let interval = shift.interval { print(exp(interval.lowerBound), exp(interval.upperBound)) }
/// ```
/// - Complexity: O(N log N) for the N Walsh averages or differences, and O(n³) for an exact count.
public struct HodgesLehmann: Sendable, Equatable {
    /// How the differences were formed.
    public enum Design: String, Sendable {
        /// One sample of paired differences: the signed-rank statistic.
        case paired
        /// Two independent samples: the rank-sum statistic.
        case twoSample = "two-sample"
    }

    /// How the interval's order statistic was found.
    public enum Method: String, Sendable {
        /// From the exact null distribution.
        case exact
        /// From its normal approximation.
        case normal
    }

    /// The design.
    public let design: Design
    /// The estimated shift: the median Walsh average or pairwise difference; nil without values.
    public let estimate: Double?
    /// The confidence interval of the shift; nil when the samples are too small for one at `confidence`.
    public let interval: ClosedRange<Double>?
    /// The confidence asked for (0.95).
    public let confidence: Double
    /// The confidence the interval really has (at least `confidence`: the statistic is discrete); nil without one.
    public let coverage: Double?
    /// How the interval was found.
    public let method: Method
    /// The sample sizes: the pairs twice (paired), or the first and the second sample's sizes.
    public let sizes: (first: Int, second: Int)

    /// Up to this many pairs, or values in both samples together, the null distribution is counted exactly.
    public static let exactLimit = 400

    /// The shift of paired differences (`current − base` per pair, or log ratios).
    /// - Parameters:
    ///   - differences: the pairs' differences.
    ///   - confidence: the interval's confidence (0.95).
    ///   - exactLimit: above this many pairs the normal approximation is used (tests lower it).
    public init(paired differences: [Double], confidence: Double = 0.95, exactLimit: Int = HodgesLehmann.exactLimit) {
        precondition(confidence > 0 && confidence < 1, "a confidence is between 0 and 1")
        precondition(!differences.contains { $0.isNaN }, "the Hodges-Lehmann estimate cannot rank NaN")
        let n = differences.count
        var walsh: [Double] = []
        walsh.reserveCapacity(n * (n + 1) / 2)
        for i in 0..<n {
            for j in i..<n { walsh.append((differences[i] + differences[j]) / 2) }
        }
        walsh.sort()
        let method: Method = n <= exactLimit ? .exact : .normal
        let order =
            n == 0
            ? nil
            : Self.order(
                confidence: confidence, method: method,
                lowerTail: { Self.signedRankDistribution(n) },
                normal: (mean: Double(n * (n + 1)) / 4, variance: Double(n * (n + 1) * (2 * n + 1)) / 24))
        self.init(
            design: .paired, sorted: walsh, order: order, confidence: confidence, method: method, sizes: (n, n))
    }

    /// The shift from `first` to `second` (how far `second` lies above `first`), two independent samples.
    /// - Parameters:
    ///   - first: the first sample (the base).
    ///   - second: the second sample (the current side).
    ///   - confidence: the interval's confidence (0.95).
    ///   - exactLimit: above this many values in both samples together the normal approximation is used.
    public init(
        from first: [Double], to second: [Double], confidence: Double = 0.95,
        exactLimit: Int = HodgesLehmann.exactLimit
    ) {
        precondition(confidence > 0 && confidence < 1, "a confidence is between 0 and 1")
        precondition(!(first + second).contains { $0.isNaN }, "the Hodges-Lehmann estimate cannot rank NaN")
        let (n, m) = (first.count, second.count)
        var differences: [Double] = []
        differences.reserveCapacity(n * m)
        for x in first {
            for y in second { differences.append(y - x) }
        }
        differences.sort()
        let method: Method = n + m <= exactLimit ? .exact : .normal
        let order =
            n == 0 || m == 0
            ? nil
            : Self.order(
                confidence: confidence, method: method,
                lowerTail: { Self.rankSumDistribution(n, m) },
                normal: (mean: Double(n * m) / 2, variance: Double(n * m * (n + m + 1)) / 12))
        self.init(
            design: .twoSample, sorted: differences, order: order, confidence: confidence, method: method,
            sizes: (n, m))
    }

    private init(
        design: Design, sorted: [Double], order: (k: Int, coverage: Double)?, confidence: Double, method: Method,
        sizes: (Int, Int)
    ) {
        self.design = design
        self.confidence = confidence
        self.method = method
        self.sizes = sizes
        estimate = sorted.median
        if let order, order.k >= 1, order.k <= (sorted.count + 1) / 2 {
            interval = sorted[order.k - 1]...sorted[sorted.count - order.k]
            coverage = order.coverage
        } else {
            interval = nil
            coverage = nil
        }
    }

    public static func == (lhs: HodgesLehmann, rhs: HodgesLehmann) -> Bool {
        lhs.design == rhs.design && lhs.estimate == rhs.estimate && lhs.interval == rhs.interval
            && lhs.confidence == rhs.confidence && lhs.coverage == rhs.coverage && lhs.method == rhs.method
            && lhs.sizes == rhs.sizes
    }

    // MARK: - The order statistic

    /// The largest k with P(T ≤ k − 1) ≤ (1 − confidence)/2, and the interval's coverage 1 − 2·P(T ≤ k − 1); k = 0
    /// when there is none.
    private static func order(
        confidence: Double, method: Method, lowerTail: () -> [Double], normal: (mean: Double, variance: Double)
    ) -> (k: Int, coverage: Double) {
        let tail = (1 - confidence) / 2
        switch method {
        case .exact:
            // Cumulative probabilities of the statistic's values 0, 1, 2…
            var cumulative = 0.0
            var k = 0
            var covered = 0.0
            // A tolerance in the last bits, so a tail of exactly 2.5% (a count that divides evenly) is accepted.
            for probability in lowerTail() {
                cumulative += probability
                guard cumulative <= tail * (1 + 1e-12) else { break }
                k += 1
                covered = cumulative
            }
            return (k, 1 - 2 * covered)
        case .normal:
            // P(T ≤ k − 1) ≈ Φ((k − 1 + ½ − mean)/σ) ≤ tail.
            let z = Self.normalQuantile(1 - tail)
            let k = Int(floor(normal.mean - z * normal.variance.squareRoot() + 0.5))
            let covered =
                0.5 * erfc(-((Double(k) - 0.5 - normal.mean) / normal.variance.squareRoot()) / 2.0.squareRoot())
            return (max(0, k), 1 - 2 * covered)
        }
    }

    /// P(T = t) for t = 0, 1, … n(n+1)/2, T the sum of the ranks of the positive differences among n without
    /// ties, each sign equally likely.
    static func signedRankDistribution(_ n: Int) -> [Double] {
        guard n > 0 else { return [1] }
        let total = n * (n + 1) / 2
        // ways[t]: sign patterns of the ranks so far whose positive ranks sum to t (as probabilities, halved at
        // each rank, so 2ⁿ never has to be held).
        var ways = [Double](repeating: 0, count: total + 1)
        ways[0] = 1
        var reach = 0
        for rank in 1...n {
            reach += rank
            for sum in stride(from: reach, through: 0, by: -1) {
                let with = sum >= rank ? ways[sum - rank] : 0
                ways[sum] = (ways[sum] + with) / 2
            }
        }
        return ways
    }

    /// P(U = u) for u = 0, 1, … n·m, U the number of pairs (x, y) with x > y between samples of n and m values
    /// without ties, every order equally likely: the coefficients of the Gaussian binomial [n+m choose n](q),
    /// built one factor (1 − q^(m+i)) / (1 − q^i) at a time so every step is itself a distribution's count.
    static func rankSumDistribution(_ n: Int, _ m: Int) -> [Double] {
        let total = n * m
        var counts = [Double](repeating: 0, count: total + 1)
        counts[0] = 1
        var degree = 0
        for i in stride(from: 1, through: n, by: 1) {
            // Times (1 − q^(m+i)), then divided by (1 − q^i): [m+i choose i] from [m+i−1 choose i−1].
            let up = m + i
            degree += m
            for power in stride(from: degree, through: up, by: -1) { counts[power] -= counts[power - up] }
            for power in stride(from: i, through: degree, by: 1) { counts[power] += counts[power - i] }
        }
        let sum = counts.reduce(0, +)
        return counts.map { $0 / sum }
    }

    /// The standard normal distribution's quantile (Acklam's rational approximation, refined by one Halley
    /// step on `erfc`: about 1e-15 relative).
    static func normalQuantile(_ p: Double) -> Double {
        precondition(p > 0 && p < 1, "a quantile of a probability strictly between 0 and 1")
        let a = [
            -3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02,
            -3.066479806614716e+01, 2.506628277459239e+00,
        ]
        let b = [
            -5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01,
            -1.328068155288572e+01,
        ]
        let c = [
            -7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00,
            4.374664141464968e+00, 2.938163982698783e+00,
        ]
        let d = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00]
        let low = 0.02425
        var x: Double
        if p < low {
            let q = (-2 * Foundation.log(p)).squareRoot()
            x =
                (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
                / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
        } else if p <= 1 - low {
            let q = p - 0.5
            let r = q * q
            x =
                (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
                / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
        } else {
            let q = (-2 * Foundation.log(1 - p)).squareRoot()
            x =
                -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
                / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
        }
        let e = 0.5 * erfc(-x / 2.0.squareRoot()) - p
        let u = e * (2 * Double.pi).squareRoot() * Foundation.exp(x * x / 2)
        x -= u / (1 + x * u / 2)
        return x
    }
}
