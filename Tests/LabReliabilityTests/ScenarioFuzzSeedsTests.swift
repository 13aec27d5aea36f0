import Foundation
import LabWorkloads
import Testing

@testable import LabReliability

/// The scenario fuzzer starts from scenario files as the tests write them and the repository's scenarios, so with no
/// `--corpus` it reaches past the first line of YAML.
@Suite("Scenario fuzzer seeds")
struct ScenarioFuzzSeedsTests {
    /// The repository this test file is in.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("the default seeds are the built-in scenarios, every Scenarios/*.yaml and the fuzz tests' scenarios")
    func seeds() throws {
        let scenarios = try FileManager.default.contentsOfDirectory(
            atPath: Self.root.appendingPathComponent("Scenarios").path
        ).filter { $0.hasSuffix(".yaml") }
        let found = ScenarioSeeds.found(from: Self.root.appendingPathComponent("Sources/LabReliability"))
        #expect(found.count >= scenarios.count + 20, "\(found.count) found, \(scenarios.count) in Scenarios")
        let quick = try Data(contentsOf: Self.root.appendingPathComponent("Scenarios/quick.yaml"))
        #expect(found.contains(quick))
        // Every built-in seed is a scenario the stack's reader accepts.
        let target = FuzzTarget.scenarioFile(workloads: .stack)
        for seed in ScenarioSeeds.builtIn {
            #expect(target.execute(Data(seed.utf8)) == .accepted, "\(seed)")
        }
    }

    @Test("a bounded session from the default seeds accepts mutants, not only the seeds")
    func accepts() throws {
        let target = FuzzTarget.scenarioFile(workloads: .stack)
        let seeds = target.defaultCorpus()
        #expect(seeds.count > ScenarioSeeds.builtIn.count)
        let report = try Fuzzer(target: target, seed: 11).run(corpus: seeds, seconds: 60, maxExecutions: 3_000)
        let seedsAccepted = seeds.filter { target.execute($0) == .accepted }.count
        #expect(report.unexpected.isEmpty)
        #expect(seedsAccepted >= ScenarioSeeds.builtIn.count)
        #expect(report.accepted > seedsAccepted, "\(report.accepted) accepted of \(report.executions)")
    }
}
