/// The version of an engine a build links (`SQLite 3.40.1`), as the module that links it names it: the lab core
/// links none, and records what the workloads' module hands the runner.
public struct EngineVersion: Codable, Sendable, Hashable, CustomStringConvertible {
    /// The engine's name as people write it (`SQLite`, `LMDB`).
    public var name: String
    /// Its version.
    public var version: String

    /// Names an engine's version.
    public init(_ name: String, _ version: String) {
        self.name = name
        self.version = version
    }

    /// `NAME VERSION`.
    public var description: String { "\(name) \(version)" }
}
