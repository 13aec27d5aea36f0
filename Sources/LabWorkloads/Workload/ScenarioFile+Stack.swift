import Foundation

extension ScenarioFile {
    /// Reads and validates a scenario file naming one of the stack workloads (``WorkloadRegistry/stack``).
    ///
    /// For example:
    /// ```swift
    /// let scenario = try ScenarioFile.load(URL(fileURLWithPath: "Scenarios/quick.yaml"))
    /// ```
    /// - Parameter url: The scenario file (YAML).
    /// - Returns: The validated scenario.
    /// - Throws: `LabError.invalidScenario` with `FILE:LINE: what is wrong; expected …`.
    public static func load(_ url: URL) throws -> Scenario {
        try load(url, workloads: .stack)
    }

    /// Validates scenario text naming one of the stack workloads.
    /// - Parameters:
    ///   - text: The scenario's YAML.
    ///   - file: The file it names in errors (and that relative model paths start from).
    /// - Returns: The validated scenario.
    /// - Throws: `LabError.invalidScenario` with `FILE:LINE: what is wrong; expected …`.
    public static func parse(_ text: String, file: URL) throws -> Scenario {
        try parse(text, file: file, workloads: .stack)
    }
}
