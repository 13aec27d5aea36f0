import LabWorkloads

extension WorkloadRegistry {
    /// The engine comparison, what `stacklab-bench` runs: ObjectStack against the engines' C APIs and GRDB. It
    /// reads model files as `stacklab` does, so a scenario naming one is refused saying what the file holds.
    public static let engines = WorkloadRegistry(
        [EngineOverheadWorkload()], modelFiles: WorkloadRegistry.stack.modelFiles,
        builtinModels: WorkloadRegistry.stack.builtinModels)
}
