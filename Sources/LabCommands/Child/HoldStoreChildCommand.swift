import ArgumentParser
import Foundation
import LabReliability
import LabWorkloads

/// `stacklab child hold-store`: keeps a pod store open until standard input closes (the tests' other process
/// during a migration).
struct HoldStoreChildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hold-store", abstract: "Keep a pod store open until standard input closes (for tests).")

    @Option(help: ArgumentHelp("The store.", valueName: "sqlite|lmdb")) var store = StoreKind.sqlite
    @Option(help: "The store file.") var path: String
    @Option(help: "The pod model version the store holds.") var modelVersion = 1

    func validate() throws { try store.requireFile() }

    func run() throws {
        do {
            try StoreHolder(store: store, url: URL(fileURLWithPath: path), modelVersion: modelVersion).run()
            print("closed")
        } catch {
            throw failure(verb: "child hold-store", "\(error)", status: .regression)
        }
    }
}
