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
        let stack = try LabStack(
            strategy: strategy, store: store, model: ScenarioModel.load(run), in: run.directory, clock: run.clock,
            options: options)
        defer { stack.close() }
        let session = try RunSession(stack: stack, run: run)
        return try await ProcessUsage.measuring {
            session.metrics(try await self.run(session))
        }
    }
}
