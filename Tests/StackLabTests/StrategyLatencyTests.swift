import StackLab
import Testing

@Suite("Strategy latency benchmark")
struct StrategyLatencyTests {
    @Test("both strategies fetch while the background saves, and every pod lands", arguments: ["memory", "sqlite"])
    @MainActor
    func tinyRun(store: String) async throws {
        let kind = try #require(StrategyLatencyBenchmark.Store(rawValue: store))
        let samples = try await StrategyLatencyBenchmark(
            store: kind, objects: 200, batches: 2, batchSize: 50, repetitions: 1
        ).run()
        #expect(Set(samples.map(\.strategy)) == Set(StrategyLatencyBenchmark.Strategy.allCases))
        #expect(samples.count == 2)
        for sample in samples {
            #expect(!sample.fetchMilliseconds.isEmpty, "\(sample.strategy) recorded no fetch")
            #expect(sample.fetchMilliseconds.allSatisfy { $0 >= 0 })
            #expect(sample.insertedObjects == 100)
            #expect(sample.storedCount == 300, "200 seeded + 2 batches of 50")
            #expect(sample.objectsPerSecond > 0)
        }
        // Only separate stacks merge; each background save arrives on the main queue once.
        #expect(samples.first { $0.strategy == .separateStacks }?.mergedSaves == 2)
        #expect(samples.first { $0.strategy == .sharedCoordinator }?.mergedSaves == 0)

        let table = StrategyLatencyBenchmark.table(samples, store: kind)
            .split(separator: "\n", omittingEmptySubsequences: false)
        #expect(table[0].hasPrefix("strategy"))
        #expect(table[1].hasPrefix("shared-coordinator") && table[2].hasPrefix("separate-stacks"))
        #expect(table[0].count == table[1].count && table[0].count == table[2].count)
        #expect(table[4].hasPrefix("separate/shared: p50 "))
    }

    @Test("percentiles are nearest-rank on sorted values")
    func percentiles() {
        let values = (1...100).map(Double.init)
        #expect(StrategyLatencyBenchmark.percentile(values, 0.5) == 50)
        #expect(StrategyLatencyBenchmark.percentile(values, 0.9) == 90)
        #expect(StrategyLatencyBenchmark.percentile(values, 0.99) == 99)
        #expect(StrategyLatencyBenchmark.percentile(values, 1) == 100)
        #expect(StrategyLatencyBenchmark.percentile([7], 0.99) == 7)
        #expect(StrategyLatencyBenchmark.percentile([], 0.5) == 0)
    }
}
