import Foundation

extension Scenario {
    /// Refuses a scenario on a model file whose workload runs on its built-in models only. The model file
    /// itself has loaded and been checked.
    /// - Throws: `LabError.unsupported` naming the scenario, its workload, and its model.
    public func refuseModelFileUnlessWorkloadTakesIt() throws {
        guard case .file(let path) = model, !workload.acceptsModelFiles else { return }
        let loaded = loadedModelFile.map { " (loaded: \($0))" } ?? ""
        throw LabError(
            .unsupported,
            "scenario '\(name)': workload \(workload.name) runs on built-in models only; model file \(path)\(loaded) "
                + "cannot run on it. To get its data, use: stacklab model populate \(path) --objects N --out STORE")
    }
}
