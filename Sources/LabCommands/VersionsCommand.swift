import ArgumentParser
import LabWorkloads

/// `stacklab versions`: the engines this build links, one line each.
struct VersionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "versions", abstract: "Print the versions of the engines this build links.")

    func run() {
        for engine in LabStores.engines { print(engine) }
    }
}
