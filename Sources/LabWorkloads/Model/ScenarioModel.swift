import Foundation
import LabCore
import ObjectStack

/// The managed object model a scenario's runs use, from its `model:` reference: the one place a workload
/// gets its model, so reading other models changes this file and no workload.
public enum ScenarioModel {
    /// The model of `run`'s scenario.
    /// - Throws: `LabError.unsupported` for a model file the stack's loader did not load.
    public static func load(_ run: WorkloadRun) throws -> ManagedObjectModel {
        switch run.model {
        case .builtin(let name):
            guard name == PodModel.builtinName else {
                throw LabError(.unsupported, "model builtin:\(name) is not one the stack workloads build")
            }
            return try PodModel.make()
        case .file(let path):
            guard let file = run.modelFile as? ScenarioModelFile else {
                throw LabError(.unsupported, "model file \(path) was not loaded by the stack's model-file loader")
            }
            return file.selection.model
        }
    }
}
