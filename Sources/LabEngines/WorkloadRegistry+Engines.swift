import Foundation
// The lab as one module: the command line imports this and nothing else of the package.
@_exported import LabCore
@_exported import LabEngines
@_exported import LabReliability
@_exported import StackLab

extension WorkloadRegistry {
    /// Every workload of the lab: the stack workloads and launches, then the engine comparison.
    public static let lab = WorkloadRegistry(
        WorkloadRegistry.stack.all + [EngineOverheadWorkload()], modelFiles: WorkloadRegistry.stack.modelFiles)
}

extension ScenarioFile {
    /// Reads and validates a scenario file naming any of the lab's workloads.
    /// - Throws: `LabError.invalidScenario` with `FILE:LINE: what is wrong; expected …`.
    public static func load(_ url: URL) throws -> Scenario {
        try load(url, workloads: .lab)
    }

    /// Validates scenario text naming any of the lab's workloads; `file` names it in errors.
    /// - Throws: `LabError.invalidScenario` with `FILE:LINE: what is wrong; expected …`.
    public static func parse(_ text: String, file: URL) throws -> Scenario {
        try parse(text, file: file, workloads: .lab)
    }
}
