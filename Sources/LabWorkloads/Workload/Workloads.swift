import LabCore

extension WorkloadRegistry {
    /// The workloads on ObjectStack's stacks and launches, in the order `list` and errors name them. The engine
    /// comparison adds its own (`WorkloadRegistry.lab`, in the `Lab` module).
    public static let stack = WorkloadRegistry(
        [
            ImportWorkload(), ReadWriteMixWorkload(), MergeCostWorkload(), SaveChainWorkload(), StartupWorkload(),
        ], modelFiles: ModelFileLoader())
}
