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
    @Option(help: "How an older store reaches it: lightweight, custom (pods), none or history (a store file).")
    var migration: StartupMigration = .lightweight
    @Option(help: "On a store file: the model bundle (.xcdatamodeld) of the app.") var bundle: String?
    @Option(help: "On a store file: the version of the bundle the app ships.") var version: String?
    @Option(help: "On a store file: the first screen's entity.") var screenEntity: String?
    @Option(help: "On a store file: the first screen's sort keys, comma-separated, -key descending.")
    var screenSort: String?
    @Option(help: "On a store file: the first screen's predicate.") var screenPredicate: String?
    @Option(help: "On a store file: the first screen's rows.") var screenLimit = 50
    @Option(help: "On a store file: the attribute each row of the first screen shows.") var screenKey: String?

    func validate() throws {
        try store.requireFile()
        if bundle != nil, version == nil || screenEntity == nil {
            throw ValidationError("--bundle needs --version and --screen-entity")
        }
    }

    @MainActor
    func run() async throws {
        let child: LaunchChild
        if let bundle, let version, let screenEntity {
            let app = StoreFileApp(
                bundle: URL(fileURLWithPath: bundle), version: version, migration: migration, entity: screenEntity,
                sort: screenSort.map { $0.split(separator: ",").map(String.init) } ?? [], predicate: screenPredicate,
                limit: screenLimit, shownKey: screenKey)
            child = LaunchChild(storeFile: app, url: URL(fileURLWithPath: path), mode: mode)
        } else {
            child = LaunchChild(
                store: store, url: URL(fileURLWithPath: path), mode: mode, modelVersion: modelVersion,
                migration: migration)
        }
        let report = await child.run()
        if report.error != nil { throw ExitStatus.regression.code }
    }
}

extension LaunchChild.Mode: ExpressibleByArgument {}

extension StartupMigration: ExpressibleByArgument {}
