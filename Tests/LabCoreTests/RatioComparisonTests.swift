import Foundation
import LabCore
import Testing

/// One metric's ratio, interval and verdict: the band's four outcomes, the direction a metric is declared with, the
/// scale a count or a flag is read on, and the repetitions an unresolved comparison would need.
@Suite("Ratio comparison: an interval against a threshold band")
struct RatioComparisonTests {
    /// Eight runs a side around `center`, spread ±3%.
    static func runs(_ center: Double) -> [Double] {
        [0.97, 0.98, 0.99, 1.0, 1.0, 1.01, 1.02, 1.03].map { $0 * center }
    }

    @Test("a time 30% longer with a narrow interval is slower; 30% shorter is faster; within 10% is the same")
    func fourOutcomes() throws {
        let slower = RatioComparison(base: Self.runs(100), current: Self.runs(130), polarity: .lowerIsBetter)
        #expect(slower.verdict == .slower)
        #expect(abs(try #require(slower.ratio) - 1.3) < 1e-9)
        let interval = try #require(slower.interval)
        #expect(interval.lowerBound > 1.1 && interval.upperBound < 1.5 && interval.contains(1.3))
        #expect(
            RatioComparison(base: Self.runs(100), current: Self.runs(70), polarity: .lowerIsBetter).verdict == .faster)
        let same = RatioComparison(base: Self.runs(100), current: Self.runs(101), polarity: .lowerIsBetter)
        #expect(same.verdict == .same)
        #expect(try #require(same.sameWithin) < 0.06)
        #expect(same.repetitionsNeeded == nil && same.note.isEmpty)
    }

    @Test("an interval straddling the band's edge is unresolved, and names more runs than it has")
    func straddling() throws {
        // 10% longer, spread ±3%: the interval runs across 1.10.
        let edge = RatioComparison(base: Self.runs(100), current: Self.runs(111), polarity: .lowerIsBetter)
        #expect(edge.verdict == .unresolved)
        // Exactly on the edge there is no telling how many runs would do.
        #expect((edge.repetitionsNeeded ?? 9) > 8)
        let wide = RatioComparison(
            base: [90, 110, 95, 105, 100], current: [100, 140, 95, 130, 118], polarity: .lowerIsBetter)
        #expect(wide.verdict == .unresolved)
        #expect(try #require(wide.repetitionsNeeded) > 5)
    }

    @Test("throughput is faster when higher; a count is changed, neither faster nor slower")
    func direction() {
        #expect(
            RatioComparison(base: Self.runs(1000), current: Self.runs(1500), polarity: .higherIsBetter).verdict
                == .faster)
        #expect(
            RatioComparison(base: Self.runs(1000), current: Self.runs(500), polarity: .higherIsBetter).verdict
                == .slower)
        #expect(
            RatioComparison(base: Self.runs(100), current: Self.runs(300), polarity: .neutral).verdict == .changed)
        #expect(RatioComparison(base: Self.runs(100), current: Self.runs(100), polarity: .neutral).verdict == .same)
    }

    @Test("too few runs for an interval: unresolved, saying why and how many would likely do")
    func tooFew() throws {
        let three = RatioComparison(base: [100, 102, 98], current: [120, 121, 119], polarity: .lowerIsBetter)
        #expect(three.interval == nil && three.verdict == .unresolved)
        #expect(three.note == "3 and 3 runs: too few for a 95% interval")
        #expect(try #require(three.repetitionsNeeded) >= RatioComparison.fewestRuns(.unpaired))
        let one = RatioComparison(base: [100], current: [130], polarity: .lowerIsBetter)
        #expect(one.repetitionsNeeded == nil, "one run a side: no spread to go on")
        let five = RatioComparison(
            base: [1, 2, 3, 4, 5], current: [1, 2, 3, 4, 5], pairing: .paired, polarity: .lowerIsBetter)
        #expect(five.note == "5 pairs: too few for a 95% interval")
        #expect(five.repetitionsNeeded == 6)
    }

    @Test("the fewest runs with an interval: 4 a side and 6 pairs at 95%, 5 a side and 8 pairs at 99%")
    func fewestRuns() {
        #expect(RatioComparison.fewestRuns(.unpaired) == 4)
        #expect(RatioComparison.fewestRuns(.paired) == 6)
        #expect(RatioComparison.fewestRuns(.unpaired, confidence: 0.99) == 5)
        #expect(RatioComparison.fewestRuns(.paired, confidence: 0.99) == 8)
    }

    @Test("zeros are read against the base's size: a flag raised in every current run is slower without bound")
    func zeros() throws {
        let killed = RatioComparison(base: [0, 0, 0, 0], current: [1, 1, 1, 1], polarity: .lowerIsBetter)
        #expect(killed.verdict == .slower)
        #expect(try #require(killed.ratio) == .infinity)
        let calm = RatioComparison(base: [0, 0, 0, 0], current: [0, 0, 0, 0], polarity: .lowerIsBetter)
        #expect(calm.verdict == .same && calm.ratio == 1)
        // A count with a zero among its runs: its shift is read against the base median, 10.
        let merges = RatioComparison(base: [0, 10, 10, 10, 10], current: [0, 20, 20, 20, 20], polarity: .neutral)
        #expect(abs(try #require(merges.ratio) - 2) < 1e-9)
        // A wait that is mostly nothing: read against the base's mean size, so the ratio stays finite.
        let wait = RatioComparison(
            base: [0, 0, 0, 0.004, 0, 0.002], current: [0, 0.002, 0, 0, 0.004, 0], polarity: .lowerIsBetter)
        #expect(try #require(wait.ratio).isFinite)
        #expect(try #require(wait.interval).upperBound.isFinite)
    }

    @Test("a side without values: unresolved, saying which")
    func missingSide() {
        let none = RatioComparison(base: [], current: [1, 2], polarity: .lowerIsBetter)
        #expect(none.verdict == .unresolved && none.note == "no base values" && none.ratio == nil)
    }
}
