import Foundation
import LabCore
import ObjectStack

/// A run on a scenario's model file: the loaded file, its population planned with the run's seed, and the first
/// screen; the one place the stack workloads seed a model file's store and read its first screen.
struct ModelFileRun: Sendable {
    /// The file, its chosen version and its population.
    let file: ScenarioModelFile
    /// The population planned with the run's seed.
    let plan: PopulationPlan
    /// The first screen.
    let screen: FirstScreen

    /// The model-file side of `run`; nil for the built-in pods.
    /// - Throws: `LabError` when the file was not loaded, `PopulationRefusal` when the plan fails, the first
    ///   screen's errors.
    init?(_ run: WorkloadRun) throws {
        guard case .file(let path) = run.model else { return nil }
        guard let file = run.modelFile as? ScenarioModelFile else {
            throw LabError(.unsupported, "model file \(path) was not loaded by the stack's model-file loader")
        }
        self.file = file
        plan = try PopulationPlan(model: file.selection.model, spec: file.population, seed: run.seed)
        screen = try FirstScreen(run.firstScreen, plan: plan)
    }

    /// The planned objects of the first screen's entity (its sub-entities' included).
    var screenObjects: Int {
        let names = Set(screen.entity.selfAndDescendants.map(\.name))
        return plan.entities.filter { names.contains($0.entity.name) }.reduce(0) { $0 + $1.count }
    }

    /// Writes the population into the stack's store through a throwaway context, so no context starts with it.
    func seed(_ stack: LabStack) throws -> ModelPopulator.Result {
        stack.strategy.willSeed(stack)
        let result = try ModelPopulator.write(plan, into: stack.primaryCoordinator)
        try stack.strategy.didSeed(stack)
        return result
    }

    /// Objects of every entity in the store (each hierarchy counted once, from its root), counted through the
    /// main context: what an import's `stored_objects` compares with the objects it imported.
    @MainActor
    func storedTotal(_ stack: LabStack) async throws -> Int {
        let roots = plan.model.entities.filter { $0.superentity == nil }.map(\.name)
        return try await stack.main.perform { [main = stack.main] in
            try roots.reduce(0) { $0 + (try main.count(for: FetchRequest<ManagedObject>(entityName: $1))) }
        }
    }

    /// Objects of the first screen's entity in the store, counted through the main context.
    @MainActor
    func storedCount(_ stack: LabStack) async throws -> Int {
        let name = screen.entity.name
        return try await stack.main.perform { [main = stack.main] in
            try main.count(for: FetchRequest<ManagedObject>(entityName: name))
        }
    }
}
