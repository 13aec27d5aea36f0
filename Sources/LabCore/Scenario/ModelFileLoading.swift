import Foundation

/// Loads the model files scenarios name (`model: App.xcdatamodeld`).
///
/// The lab core reads scenario files but knows no managed object model; the stack side supplies a loader through
/// the `WorkloadRegistry`, so a model file is loaded, its `version:` chosen and its `population:` checked when the
/// scenario is read, and a model that cannot run is refused before any run.
public protocol ModelFileLoading: Sendable {
    /// Loads the model file at `path` (relative to `directory`) at `version` (nil: the current one) and checks
    /// `population`, `importKeys` (entity name → the attributes its objects are found by) and `storeFile` (a store
    /// the model's bundle wrote) against it.
    /// - Parameters:
    ///   - path: the scenario's `model:`, a `.xcdatamodeld` or `.xcdatamodel`.
    ///   - directory: the scenario file's folder, which a relative `path` starts from.
    ///   - version: the scenario's `version:`; nil for the current version.
    ///   - population: the scenario's `population:` (`count`, `children`, per entity a count or a ratio).
    ///   - importKeys: the scenario's `import_key:`, entity name → the attributes its objects are found by.
    ///   - storeFile: the scenario's `store_file:`, a store file (relative to `directory`) one of the model's
    ///     versions wrote; nil for none.
    ///   - location: `FILE:LINE` of a key under `population:`, for messages about it.
    /// - Returns: the loaded file, planned for the population.
    /// - Throws: `ModelFileProblem` naming the scenario key at fault, or a `LabError` that already says where.
    func load(
        path: String, relativeTo directory: URL, version: String?, population: [String: ScenarioValue]?,
        importKeys: [String: [String]], storeFile: String?, location: (String) -> String
    ) throws -> any LoadedModelFile
}

/// A model file a scenario names, as the loader loaded it; the lab core only shows it.
public protocol LoadedModelFile: Sendable, CustomStringConvertible {}

/// What is wrong with a scenario's model file, and which key of the scenario says it.
public struct ModelFileProblem: Error, Sendable {
    /// The scenario key at fault.
    public enum Key: Sendable, Equatable {
        case model
        case version
        /// An entity (or setting) under `population:`.
        case population(String)
        /// An entity under `import_key:`.
        case importKey(String)
        /// `store_file:`.
        case storeFile
    }

    /// The key whose line the message names.
    public var key: Key
    /// What is wrong; expected ….
    public var message: String

    /// Creates a problem with a key and a message.
    public init(_ key: Key, _ message: String) {
        self.key = key
        self.message = message
    }
}
