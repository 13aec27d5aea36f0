import Foundation
import Testing

@testable import LabCore

/// The Hodges–Lehmann intervals against SciPy: `Fixtures/compare/hodges-lehmann-scipy.json` (written by the script
/// beside it) holds paired and two-sample cases of every size around where an interval first exists, at several
/// confidences, with the interval computed from every Walsh average or pairwise difference and the order statistic
/// from SciPy's exact signed-rank and rank-sum distributions, and those distributions themselves.
@Suite("Hodges-Lehmann intervals, against SciPy's exact distributions")
struct HodgesLehmannTests {
    struct Golden: Decodable {
        struct Case: Decodable, CustomTestStringConvertible {
            let name: String
            let design: String
            let confidence: Double
            let first: [Double]
            let second: [Double]
            let estimate: Double
            let low: Double?
            let high: Double?
            let coverage: Double?
            var testDescription: String { name }
        }
        struct SignedRank: Decodable {
            let n: Int
            let cdf: [Double]
        }
        struct RankSum: Decodable {
            let n: Int
            let m: Int
            let cdf: [Double]
        }
        struct Distributions: Decodable {
            let signedRank: [SignedRank]
            let rankSum: [RankSum]

            enum CodingKeys: String, CodingKey {
                case signedRank = "signed_rank"
                case rankSum = "rank_sum"
            }
        }
        let producedBy: String
        let cases: [Case]
        let distributions: Distributions

        enum CodingKeys: String, CodingKey {
            case cases, distributions
            case producedBy = "produced_by"
        }
    }

    static let golden: Golden = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/compare/hodges-lehmann-scipy.json")
        // The fixture is part of the test target's sources: a failure to read it is a broken checkout.
        return try! JSONDecoder().decode(Golden.self, from: Data(contentsOf: url))
    }()

    static func estimate(_ golden: Golden.Case) -> HodgesLehmann {
        golden.design == "paired"
            ? HodgesLehmann(paired: golden.first, confidence: golden.confidence)
            : HodgesLehmann(from: golden.first, to: golden.second, confidence: golden.confidence)
    }

    @Test("the same estimate, interval and coverage as the reference on every golden case", arguments: golden.cases)
    func matchesReference(_ golden: Golden.Case) throws {
        let shift = Self.estimate(golden)
        #expect(shift.method == .exact)
        #expect(abs(try #require(shift.estimate) - golden.estimate) <= 1e-12)
        if let low = golden.low, let high = golden.high, let coverage = golden.coverage {
            let interval = try #require(shift.interval, "SciPy's distribution has an interval here")
            #expect(abs(interval.lowerBound - low) <= 1e-12 && abs(interval.upperBound - high) <= 1e-12)
            #expect(abs(try #require(shift.coverage) - coverage) <= 1e-9)
            #expect(coverage >= golden.confidence)
        } else {
            #expect(shift.interval == nil, "too few values for any interval at \(golden.confidence)")
        }
    }

    @Test("the exact null distributions are SciPy's")
    func distributions() {
        for golden in Self.golden.distributions.signedRank {
            var cumulative = 0.0
            for (t, probability) in HodgesLehmann.signedRankDistribution(golden.n).prefix(golden.cdf.count)
                .enumerated()
            {
                cumulative += probability
                #expect(abs(cumulative - golden.cdf[t]) <= 1e-12, "n \(golden.n), t \(t)")
            }
        }
        for golden in Self.golden.distributions.rankSum {
            var cumulative = 0.0
            for (u, probability) in HodgesLehmann.rankSumDistribution(golden.n, golden.m).prefix(
                golden.cdf.count
            ).enumerated() {
                cumulative += probability
                #expect(abs(cumulative - golden.cdf[u]) <= 1e-12, "n \(golden.n), m \(golden.m), u \(u)")
            }
        }
    }

    @Test("the golden cases reach both sides of where an interval first exists")
    func coverage() {
        let cases = Self.golden.cases
        #expect(Self.golden.producedBy.hasPrefix("scipy "))
        #expect(
            cases.contains { $0.design == "paired" && $0.first.count == 5 && $0.confidence == 0.95 && $0.low == nil })
        #expect(
            cases.contains { $0.design == "paired" && $0.first.count == 6 && $0.confidence == 0.95 && $0.low != nil })
        #expect(cases.contains { $0.design == "two-sample" && $0.first.count == 3 && $0.low == nil })
        #expect(
            cases.contains {
                $0.design == "two-sample" && $0.first.count == 4 && $0.confidence == 0.95 && $0.low != nil
            })
    }

    @Test(
        "beyond the exact limit the normal approximation picks the order statistic the exact count picks, or its neighbour"
    )
    func normalApproximation() throws {
        // A fixed, tie-free sample: the golden ratio's fractional parts.
        let differences = (1...120).map {
            (Double($0) * 0.618_033_988_749_894).truncatingRemainder(dividingBy: 1) - 0.4
        }
        let exact = HodgesLehmann(paired: differences)
        let normal = HodgesLehmann(paired: differences, exactLimit: 50)
        #expect(exact.method == .exact && normal.method == .normal)
        let walsh = differences.indices.flatMap { i in differences[i...].map { (differences[i] + $0) / 2 } }.sorted()
        let (exactInterval, normalInterval) = (try #require(exact.interval), try #require(normal.interval))
        let exactLow = try #require(walsh.firstIndex(of: exactInterval.lowerBound))
        let normalLow = try #require(walsh.firstIndex(of: normalInterval.lowerBound))
        #expect(abs(exactLow - normalLow) <= 1)
        #expect(abs(try #require(normal.coverage) - 0.95) < 0.002)
        let first = Array(differences.prefix(60))
        let second = differences.suffix(60).map { $0 + 0.1 }
        let twoExact = HodgesLehmann(from: first, to: second)
        let twoNormal = HodgesLehmann(from: first, to: second, exactLimit: 50)
        #expect(twoNormal.method == .normal)
        let gaps = first.flatMap { x in second.map { $0 - x } }.sorted()
        let (twoExactInterval, twoNormalInterval) = (try #require(twoExact.interval), try #require(twoNormal.interval))
        let a = try #require(gaps.firstIndex(of: twoExactInterval.lowerBound))
        let b = try #require(gaps.firstIndex(of: twoNormalInterval.lowerBound))
        #expect(abs(a - b) <= 1)
    }

    @Test("small cases by hand: six pairs give the extreme Walsh averages at 95%, four against four the extreme gaps")
    func byHand() throws {
        // Six pairs: k = 1 (P(T = 0) = 1/64 ≤ 2.5%), so the interval is the smallest and largest Walsh average.
        let six = HodgesLehmann(paired: [1, 2, 3, 4, 5, 6])
        #expect(six.estimate == 3.5 && six.interval == 1...6)
        #expect(try #require(six.coverage) == 1 - 2.0 / 64)
        // Four against four: k = 1 (P(U = 0) = 1/70), the interval from the smallest to the largest gap.
        let four = HodgesLehmann(from: [1, 2, 3, 4], to: [5, 6, 7, 8])
        #expect(four.estimate == 4 && four.interval == 1...7)
        #expect(HodgesLehmann(from: [1, 2, 3], to: [4, 5, 6]).interval == nil)
        #expect(HodgesLehmann(paired: []).estimate == nil)
    }

    @Test("the normal quantile is right to 1e-12 where the intervals use it")
    func normalQuantile() {
        #expect(abs(HodgesLehmann.normalQuantile(0.975) - 1.959_963_984_540_054) < 1e-12)
        #expect(abs(HodgesLehmann.normalQuantile(0.995) - 2.575_829_303_548_901) < 1e-12)
        #expect(abs(HodgesLehmann.normalQuantile(0.5)) < 1e-15)
        #expect(abs(HodgesLehmann.normalQuantile(0.001) + 3.090_232_306_167_813_5) < 1e-12)
    }
}
