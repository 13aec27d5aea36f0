import ArgumentParser
import Foundation
import LabWorkloads

/// `stacklab child launch`: one app launch on a store, for the startup workload, which watches it.
struct LaunchChildCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "launch",
        abstract: "One app launch on a store, for the startup workload (a child process it watches).")
    @Option(help: "sqlite or lmdb.") var store: StoreKind
    @Option(help: "The store file.") var path: String
    @Option(help: "sync or async.") var mode: LaunchChild.Mode
    @Option(help: "The app's pod model version.") var modelVersion = 1
    @Option(help: "How an older store reaches it: lightweight or custom (a staged migration back-filling every pod).")
    var migration: StartupMigration = .lightweight

    func validate() throws { try store.requireFile() }

    @MainActor
    func run() async throws {
        let report = await LaunchChild(
            store: store, url: URL(fileURLWithPath: path), mode: mode, modelVersion: modelVersion,
            migration: migration
        ).run()
        if report.error != nil { throw ExitStatus.regression.code }
    }
}

extension LaunchChild.Mode: ExpressibleByArgument {}

extension StartupMigration: ExpressibleByArgument {}
