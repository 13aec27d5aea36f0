import Foundation
import LabCore
import ObjectStack

/// A workload that drives a concurrency strategy in this process: it gets a `RunSession` on a fresh `LabStack` of the
/// cell's store and strategy and the scenario's model, and reports a `WorkloadOutcome`; the session adds what
/// its instruments and the stack measured (fetch latencies, main-thread stalls, merges, CPU, store size).
public protocol StackWorkload: Workload {
    /// The measured work on the session's stack.
    @MainActor func run(_ session: RunSession) async throws -> WorkloadOutcome
}

extension StackWorkload {
    /// The process's CPU time and peak memory are measured around the workload, not the stack's opening.
    public var measuresProcessUsage: Bool { false }

    /// Every store `LabStores` declares.
    public var stores: [StoreKind] { StoreKind.all }

    /// Every concurrency strategy whose background work runs in this process (`StackStrategies.inProcess`).
    public var strategies: [ConcurrencyStrategy] { StackStrategies.inProcess }

    /// Every cell but a strategy writing from another process on the in-memory store, which no other process can
    /// open.
    public func accepts(_ parameters: [String: ScenarioValue]) -> Bool {
        guard case .text(let name)? = parameters["strategy"], case .text(let store)? = parameters["store"],
            let strategy = StackStrategies.named(name)
        else { return true }
        return !(strategy.writesInAnotherProcess && StoreKind.named(store)?.isFile == false)
    }

    /// What the session measures for every stack workload (`Metric.session`).
    public var metrics: [Metric] { Metric.session }

    /// A stack workload's charts: the longest main-thread stall and the throughput against the swept number (a
    /// batch size), a line per strategy and a chart per store (bars of each when nothing is swept), with where
    /// separate stacks are clearly below a shared coordinator.
    public var charts: [ChartSpec] { Self.stackCharts }

    /// The charts of `charts`, for workloads that add their own.
    public static var stackCharts: [ChartSpec] {
        [
            .lines(
                .metric(Metric.mainMaxStallMilliseconds.name), against: .swept, series: ["strategy"], panels: ["store"],
                xLog: true, yLog: true, yLabel: "longest main-thread stall (ms)",
                contrast: ["shared-coordinator", "separate-stacks"]),
            .lines(
                .metric(Metric.objectsPerSecond.name), against: .swept, series: ["strategy"], panels: ["store"],
                xLog: true, yLabel: "throughput (objects/s)"),
        ]
    }

    /// Builds the cell's stack, runs the workload on it and closes it.
    @MainActor
    public func run(_ run: WorkloadRun) async throws -> [Metric: Double] {
        guard let store = run.store, let name = run.strategy, self.strategy(named: name) != nil,
            let strategy = StackStrategies.named(name)
        else {
            throw LabError(.invalidScenario, "the cell names no store or no concurrency strategy this workload runs on")
        }
        // A workload that declares `durability` (the import) opens every store of its stack with it.
        let options = run.parameters["durability"].map { [Durability.option: $0.description] } ?? [:]
        if let storeFile = (run.modelFile as? ScenarioModelFile)?.storeFile {
            try prepare(storeFile, for: run, store: store)
        }
        let stack = try LabStack(
            strategy: strategy, store: store, model: ScenarioModel.load(run), in: run.directory, clock: run.clock,
            options: options)
        defer { stack.close() }
        let session = try RunSession(stack: stack, run: run)
        return try await ProcessUsage.measuring {
            session.metrics(try await self.run(session))
        }
    }

    /// Puts a copy of a scenario's store file where the stack opens its store (never the file itself), walked
    /// through the model bundle's history to the scenario's version (the project's mapping models where they fit)
    /// before the run: the stack then opens a store of the app's version.
    /// - Throws: `LabError.invalidScenario` for a cell on another store than SQLite, or a step whose mapping model
    ///   names a policy class (a Swift policy cannot be loaded by name); the migration's errors.
    func prepare(_ storeFile: ScenarioStoreFile, for run: WorkloadRun, store: StoreKind) throws {
        guard store == .sqlite else {
            throw LabError(
                .invalidScenario,
                "store_file \(storeFile.url.lastPathComponent) is a Core Data store, an SQLite file; this cell's store "
                    + "is \(store.name), expected sqlite")
        }
        guard let selection = (run.modelFile as? ScenarioModelFile)?.selection else { return }
        try FileManager.default.createDirectory(at: run.directory, withIntermediateDirectories: true)
        let copy = store.location(in: run.directory)
        try storeFile.copy(to: copy)
        guard storeFile.versionIndex < selection.versionIndex else { return }
        let found = MappingModelSearch.mappingModels(near: selection.url)
        let migration = try StoreFileMigration(
            store: copy, bundle: selection.url, from: storeFile.versionName, to: selection.version.name,
            stepMigration: StoreFileMigration.mappingModelSteps(found.models))
        do {
            try migration.checkPolicies(found.models, policies: EntityMigrationPolicies())
        } catch let error as ObjectStackError {
            throw LabError(.invalidScenario, "store_file \(storeFile.url.lastPathComponent): \(error.message)")
        }
        _ = try migration.run()
    }
}
