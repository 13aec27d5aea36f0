import ArgumentParser
import Foundation
import LabWorkloads
import ObjectStack

/// `stacklab child extension-import`: the app extension of the `extension` strategy, importing the pods service's
/// pages into the app's store file (the import workload starts and watches it).
struct ExtensionImportChildCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extension-import",
        abstract: "An app extension importing into the app's store file (a child process of the import workload).")
    @Option(help: "sqlite or lmdb.") var store: StoreKind
    @Option(help: "The store file.") var path: String
    @Option(help: "The pods service's base URL.") var service: String
    @Option(help: "Pods per save.") var batchSize = 500
    @Option(help: "Pods a second (0: as fast as it goes).") var writeRate = 0.0
    @Option(help: "The store's durability (default: the store's own).") var durability: Durability?

    func validate() throws {
        try store.requireFile()
        guard URL(string: service) != nil else { throw ValidationError("--service \(service) is not a URL") }
        guard batchSize > 0 else { throw ValidationError("--batch-size must be at least 1") }
        guard writeRate >= 0 else { throw ValidationError("--write-rate must be 0 or more") }
    }

    func run() async throws {
        let succeeded = await ExtensionImport(
            store: store, url: URL(fileURLWithPath: path), service: URL(string: service)!, batchSize: batchSize,
            writeRate: writeRate, durability: durability
        ).run()
        if !succeeded { throw ExitCode.failure }
    }
}
