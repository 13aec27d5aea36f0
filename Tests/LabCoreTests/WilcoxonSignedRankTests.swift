import Foundation
import LabCore
import Testing

/// The startup gate's signed-rank test against SciPy's, whose verdicts it replaced: the same p-value (within
/// 1e-9) on every case of `Fixtures/gate/wilcoxon-scipy.json` — random differences of every size around the
/// exact/asymptotic boundaries (n ≤ 13, ≤ 50, > 50), with ties and zeros, and real launch pairs — produced by
/// `scipy.stats.wilcoxon(d, alternative="greater")` with its defaults (the file says which SciPy).
@Suite("Wilcoxon signed-rank: the gate's test, as SciPy computes it")
struct WilcoxonSignedRankTests {
    struct Golden: Decodable {
        struct Case: Decodable, CustomTestStringConvertible {
            let name: String
            let differences: [Double]
            let p: Double
            let statistic: Double
            var testDescription: String { name }
        }
        let producedBy: String
        let cases: [Case]

        enum CodingKeys: String, CodingKey {
            case cases
            case producedBy = "produced_by"
        }
    }

    static let golden: Golden = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/gate/wilcoxon-scipy.json")
        // The fixture is part of the test target's sources: a failure to read it is a broken checkout.
        return try! JSONDecoder().decode(Golden.self, from: Data(contentsOf: url))
    }()

    @Test("the same p-value and statistic as SciPy on every golden case", arguments: golden.cases)
    func matchesSciPy(_ golden: Golden.Case) {
        let test = WilcoxonSignedRank(greater: golden.differences)
        #expect(abs(test.pValue - golden.p) <= 1e-9, "p \(test.pValue), SciPy \(golden.p) (\(test.method))")
        #expect(test.statistic == golden.statistic)
    }

    @Test("the golden cases cover both methods, ties, zeros and real launch pairs")
    func coverage() {
        let cases = Self.golden.cases
        #expect(cases.count > 300)
        #expect(Self.golden.producedBy.hasPrefix("scipy "))
        let methods = Set(cases.map { WilcoxonSignedRank(greater: $0.differences).method })
        #expect(methods == [.exact, .asymptotic])
        #expect(cases.contains { $0.differences.contains(0) && $0.differences.count <= 13 })
        #expect(
            cases.contains { Set($0.differences.map(abs)).count < $0.differences.count && $0.differences.count > 50 })
        #expect(cases.contains { $0.name.hasPrefix("report fixtures") })
    }

    @Test("small exact cases: every sign pattern counted")
    func exactByHand() {
        // 1, 2, 3 all positive: only 1 of the 8 sign patterns reaches a rank sum of 6.
        #expect(WilcoxonSignedRank(greater: [0.1, 0.2, 0.3]).pValue == 1.0 / 8)
        // Zeros are dropped: the same as above.
        #expect(WilcoxonSignedRank(greater: [0, 0.1, 0, 0.2, 0.3]).pValue == 1.0 / 8)
        // Every difference zero: nothing leans either way.
        #expect(WilcoxonSignedRank(greater: [0, 0, 0]).pValue == 1)
        let tied = WilcoxonSignedRank(greater: [0.5, 0.5, -0.5])
        #expect(tied.statistic == 4 && tied.method == .exact)
        #expect(tied.pValue == 4.0 / 8, "ranks 2, 2, 2: sums of 4 or more in 4 of the 8 patterns")
    }
}
