import Foundation

extension Scenario {
    /// Refuses a scenario on a model file: the workloads run on the built-in pods model until they take any model.
    /// The model file itself has loaded and been checked.
    /// - Throws: `LabError.unsupported` naming the scenario, its workload and its model.
    public func refuseModelFileUntilWorkloadsTakeIt() throws {
        guard case .file(let path) = model else { return }
        let loaded = loadedModelFile.map { " (loaded: \($0))" } ?? ""
        throw LabError(
            .unsupported,
            "scenario '\(name)': workload \(workload.name) runs on builtin:pods only for now; model file \(path)\(loaded) "
                + "cannot run yet. To get its data, use: stacklab model \(path) --populate N --out STORE")
    }
}
