import ArgumentParser
import LabWorkloads

/// `stacklab versions`: the engines this build links.
struct VersionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "versions", abstract: "Print the versions of the engines this build links.")

    func run() {
        let versions = EngineVersions.all
        print("SQLite \(versions["sqlite"] ?? "?")")
        print("LMDB \(versions["lmdb"] ?? "?")")
    }
}
