import Foundation

/// What a workload gets for one run: the cell's parameters (defaults filled in), the scenario's model, a fresh
/// folder of its own, a folder shared by the scenario's runs, and the clock it times with.
public struct WorkloadRun: Sendable {
    /// The cell's parameters, defaults filled in.
    public var parameters: [String: ScenarioValue]
    /// The model the scenario names: a built-in one or a model file.
    public var model: ModelReference
    /// For a model file: the file as the registry's loader loaded it (its version and population).
    public var modelFile: (any LoadedModelFile)?
    /// For a model file: the scenario's `first_screen:`, if it names one.
    public var firstScreen: FirstScreenSpec?
    /// The scenario file, against which a model file's relative path resolves; nil for an inline scenario.
    public var scenarioFile: URL?
    /// This run's own folder (not yet created); the runner removes it after a failed run.
    public var directory: URL
    /// A folder every run of the scenario shares (seeded stores reused across launches); removed at the end.
    public var sharedDirectory: URL
    /// Where child processes put their own folders.
    public var workDirectory: URL
    /// The clock every duration of the run is read from.
    public var clock: any LabClock
    /// Values for the columns that depend on the scenario (`Workload.metrics(for:)`); the runner puts them in
    /// the run's row.
    public let extraMetrics = ExtraMetrics()

    /// Creates a run's context.
    public init(
        parameters: [String: ScenarioValue], model: ModelReference, scenarioFile: URL? = nil,
        modelFile: (any LoadedModelFile)? = nil, firstScreen: FirstScreenSpec? = nil,
        directory: URL, sharedDirectory: URL, workDirectory: URL, clock: any LabClock = SystemClock()
    ) {
        self.parameters = parameters
        self.model = model
        self.scenarioFile = scenarioFile
        self.modelFile = modelFile
        self.firstScreen = firstScreen
        self.directory = directory
        self.sharedDirectory = sharedDirectory
        self.workDirectory = workDirectory
        self.clock = clock
    }

    /// An integer parameter (validated when the scenario was read); 0 when unset.
    public func integer(_ name: String) -> Int { parameters[name]?.integerValue ?? 0 }
    /// A number parameter; 0 when unset.
    public func number(_ name: String) -> Double { parameters[name]?.numberValue ?? 0 }
    /// A text or choice parameter, if set.
    public func text(_ name: String) -> String? { parameters[name]?.description }
    /// A boolean parameter; false when unset.
    public func flag(_ name: String) -> Bool {
        if case .boolean(let value)? = parameters[name] { return value }
        return false
    }
    /// The data seed.
    public var seed: UInt64 { UInt64(integer("seed")) }
    /// The `strategy` parameter: the name of a concurrency strategy the workload declares.
    public var strategy: String? { text("strategy") }
}
