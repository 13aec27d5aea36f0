import Foundation
import LabCore
import ObjectStack

/// A workload that drives a stack design in this process: it gets a `RunSession` on a fresh `LabStack` of the
/// cell's store and strategy and the scenario's model, and reports a `WorkloadOutcome`; the session adds what
/// its instruments and the stack measured (fetch latencies, main-thread stalls, merges, CPU, store size).
public protocol StackWorkload: Workload {
    /// The measured work on the session's stack.
    @MainActor func run(_ session: RunSession) async throws -> WorkloadOutcome
}

extension StackWorkload {
    /// The process's CPU time and peak memory are measured around the workload, not the stack's opening.
    public var measuresProcessUsage: Bool { false }

    /// Builds the cell's stack, runs the workload on it and closes it.
    @MainActor
    public func run(_ run: WorkloadRun) async throws -> [Metric: Double] {
        guard let store = run.store, let strategy = run.strategy else {
            throw LabError(.invalidScenario, "the cell names no store or strategy")
        }
        let stack = try LabStack(
            strategy: strategy, store: store, model: ScenarioModel.load(run), in: run.directory, clock: run.clock)
        defer { stack.close() }
        let session = try RunSession(stack: stack, run: run)
        return try await ProcessUsage.measuring {
            session.metrics(try await self.run(session))
        }
    }
}
