import LabCore

extension WorkloadRegistry {
    /// The workloads on ObjectStack's stacks and launches, in the order `list` and errors name them: what
    /// `stacklab` runs. The engine comparison is `stacklab-bench`'s (`WorkloadRegistry.engines`, in LabEngines).
    public static let stack = WorkloadRegistry(
        [
            ImportWorkload(), ReadWriteMixWorkload(), MergeCostWorkload(), SaveChainWorkload(), StartupWorkload(),
        ], modelFiles: ModelFileLoader(), builtinModels: [PodModel.builtinName])
}
