import Foundation
import ObjectStack
import ObjectStackLMDB
import ObjectStackSQLite
import Testing

@testable import LabWorkloads

/// A stack workload that reports the durability every store of its stack opened with (its own coordinator's and
/// another's on the same file), as the engines say it: SQLite's synchronous level, LMDB's sync flags.
struct DurabilityProbe: StackWorkload {
    let name = "durability-probe"
    static let level = Metric(
        "durability_level", unit: .count, polarity: .neutral, about: "0 off, 1 normal, 2 full, as the stores say")
    var metrics: [Metric] { Metric.session + [Self.level] }
    var headlineMetrics: [Metric] { [Self.level] }
    var parameters: [ParameterSpec] {
        stackParameters + [
            ParameterSpec("durability", .choice(Durability.allCases.map(\.rawValue)), default: nil, help: "durability")
        ]
    }

    @MainActor
    func run(_ session: RunSession) async throws -> WorkloadOutcome {
        let stores =
            session.stack.primaryCoordinator.persistentStores
            + (try session.stack.openAnotherCoordinator()).persistentStores
        let levels = try stores.map { store -> Int in
            if let sqlite = store as? SQLiteStore { return try sqlite.synchronousLevel() }
            return [Durability.off, .normal, .full].firstIndex(of: (store as! LMDBStore).durability)!
        }
        guard Set(levels).count == 1 else { throw LabError(.workloadFailed, "the stores differ: \(levels)") }
        return WorkloadOutcome(wallMilliseconds: 1, objects: 0, metrics: [Self.level: Double(levels[0])])
    }
}

/// The lab's `durability` parameter: every store of a stack workload's stack opens with it, and the import declares
/// it, so a scenario can put the three settings side by side.
@Suite("Durability as a lab parameter")
struct DurabilityParameterTests {
    static let registry = WorkloadRegistry(
        WorkloadRegistry.stack.all + [DurabilityProbe()], modelFiles: WorkloadRegistry.stack.modelFiles,
        builtinModels: WorkloadRegistry.stack.builtinModels)

    @MainActor
    func run(_ text: String, workloads: WorkloadRegistry = Self.registry) async throws -> [RunResult] {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("durability-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let scenario = try ScenarioFile.parse(
            text, file: URL(fileURLWithPath: "/tests/inline.yaml"), workloads: workloads)
        var options = ScenarioRunner.Options(outDirectory: out)
        options.engines = LabStores.engines
        let runner = ScenarioRunner(options: options, progress: ProgressReporter(isTerminal: false) { _ in })
        return try await runner.run(runner.prepared(scenario))
    }

    @Test("each store of the stack opens at the cell's durability, or at the store's default without one")
    @MainActor
    func stacksOpenAtTheCellsDurability() async throws {
        let results = try await run(
            """
            name: probe
            workload: durability-probe
            repetitions: 1
            parameters: {strategy: separate-stacks}
            matrix:
              store: [sqlite, lmdb]
              durability: [full, normal, off]
            """)
        #expect(results.count == 6)
        for result in results {
            #expect(result.error == nil, "\(result.cell.label): \(result.error ?? "")")
            let expected = ["off", "normal", "full"].firstIndex(of: result.cell.parameters["durability"]!.description)!
            #expect(result.metrics[DurabilityProbe.level] == Double(expected), "\(result.cell.label)")
        }
        let defaults = try await run(
            """
            name: defaults
            workload: durability-probe
            repetitions: 1
            parameters: {strategy: shared-coordinator}
            matrix:
              store: [sqlite, lmdb]
            """)
        #expect(defaults.map { $0.metrics[DurabilityProbe.level] } == [1, 2], "SQLite normal, LMDB full")
    }

    @Test("the import takes durability: each setting imports every pod; another value is refused naming the three")
    @MainActor
    func importTakesDurability() async throws {
        let results = try await run(
            """
            name: tiny
            workload: import
            repetitions: 1
            parameters: {store: lmdb, strategy: shared-coordinator, objects: 120, page_size: 50, batch_size: 40}
            matrix:
              durability: [full, normal, off]
            """)
        #expect(results.count == 3)
        for result in results {
            #expect(result.error == nil, "\(result.cell.label): \(result.error ?? "")")
            #expect(result.metrics[.storedObjects] == 120)
        }
        let error = #expect(throws: (any Error).self) {
            try ScenarioFile.parse(
                "name: bad\nworkload: import\nparameters: {store: sqlite, strategy: main-only, durability: sometimes}\n",
                file: URL(fileURLWithPath: "/tests/bad.yaml"), workloads: Self.registry)
        }
        #expect("\(error!)".contains("durability") && "\(error!)".contains("full, normal, off"), "\(error!)")
    }
}
