import Foundation

extension Scenario {
    /// Refuses a scenario on a model file: the workloads run on the built-in pods model until they take any model
    /// (issue 22, after the Workload protocol of issue 21). The model file itself has loaded and been checked.
    /// - Throws: `LabError.unsupported` naming the scenario, its workload and its model.
    public func refuseModelFileUntilWorkloadsTakeIt() throws {
        guard case .file(let path) = model else { return }
        let loaded = modelFile.map { " (loaded: version \($0.version.name), \($0.model.entities.count) entities)" } ?? ""
        throw LabError(.unsupported,
            "scenario '\(name)': workload \(workload.rawValue) runs on builtin:pods only for now; model file \(path)\(loaded) "
                + "cannot run yet. To get its data, use: stacklab model \(modelFile?.url.path ?? path) --populate N --out STORE")
    }
}
