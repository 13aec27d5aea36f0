import Foundation
import LabCore
import ObjectStack

/// The managed object model a scenario's runs use, from its `model:` reference: the one place a workload
/// gets its model, so reading other models changes this file and no workload.
public enum ScenarioModel {
    /// The model of `run`'s scenario.
    /// - Throws: `LabError.unsupported` for a model the lab cannot run yet.
    public static func load(_ run: WorkloadRun) throws -> ManagedObjectModel {
        switch run.model {
        case .builtinPods:
            return try PodModel.make()
        case .file(let path):
            throw LabError(
                .unsupported, "model files (\(path)) are not run by the lab's workloads yet; use builtin:pods")
        }
    }
}
