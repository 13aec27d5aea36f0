import LabWorkloads
import Testing

/// The stack workloads' metric declarations say which way is better, so compare and the gate judge by them.
@Suite("Stack metric declarations")
struct MetricDeclarationTests {
    @Test("throughput is better higher, hitch time per second lower, counts neither")
    func polarity() {
        #expect(Metric.objectsPerSecond.polarity == .higherIsBetter)
        #expect(Metric.mainHitchMillisecondsPerSecond.polarity == .lowerIsBetter)
        #expect(Metric.fetches.polarity == .neutral && Metric.fetches.unit == .count)
        #expect(Metric.timeToFirstScreenMilliseconds.polarity == .lowerIsBetter)
    }
}
