import ArgumentParser
import Foundation
import LabWorkloads

/// `stacklab store describe STORE --model BUNDLE [--version NAME] [--json]`.
struct StoreDescribeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "describe",
        abstract: "Which version of a model bundle wrote a store, and what the store holds.",
        discussion: """
            Reads a copy of STORE (with its -wal and -shm) and never changes the file it is given. It prints the
            version that wrote the store and why (its model cache compared with each version of the bundle, or
            without a cache its tables and columns), each entity's rows (by Z_ENT), to-one references, many-to-many
            links, dangling references and missing external-data files. Without --model, the model the store's
            cache describes is used.
            """)

    @Argument(help: "The store file (its -wal and -shm are read beside it).") var store: String
    @Option(help: "The model bundle (.xcdatamodeld or .xcdatamodel) whose versions may have written the store.")
    var model: String?
    @Option(help: "The version to pick among versions that cannot be told apart.") var version: String?
    @Flag(help: "Print the report as JSON.") var json = false

    func run() throws {
        do {
            let report = try StoreFileReport(
                store: URL(fileURLWithPath: store), model: model.map { URL(fileURLWithPath: $0) },
                preferring: version)
            print(json ? try report.json() : report.text)
        } catch {
            throw failure(verb: "store describe", "\(error)")
        }
    }
}
