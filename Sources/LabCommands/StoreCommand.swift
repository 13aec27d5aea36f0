import ArgumentParser
import Foundation
import LabWorkloads

/// `stacklab store`: store files Core Data or ObjectStack wrote — describe one, upgrade one from ObjectStack's first
/// layout.
struct StoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store", abstract: "Describe a store file Core Data wrote, or upgrade one ObjectStack wrote.",
        subcommands: [DescribeStoreCommand.self, UpgradeStoreCommand.self])
}

/// `stacklab store describe STORE --model BUNDLE [--version NAME] [--json]`.
struct DescribeStoreCommand: ParsableCommand {
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

/// `stacklab store upgrade STORE --model MODEL`.
struct UpgradeStoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upgrade",
        abstract: "Rewrite a store of ObjectStack's first file layout in Core Data's layout, in place.",
        discussion: """
            A store ObjectStack wrote before it wrote Core Data's layout is refused when opened. This rewrites it:
            every row, link and key reservation is copied into a new file in Core Data's layout, which then
            replaces the old one (a kill before the swap leaves the old file as it was). MODEL is the model file
            that wrote the store; with several versions, --version names the one.
            """)

    @Argument(help: "The store file.") var store: String
    @Option(help: "The model file (.xcdatamodeld or .xcdatamodel) that wrote the store.") var model: String
    @Option(help: "The version of the model that wrote the store (default: the current one).") var version: String?

    func run() throws {
        do {
            let rows = try StoreFileUpgrade.run(
                store: URL(fileURLWithPath: store), model: URL(fileURLWithPath: model), version: version)
            print("upgraded \(store) to Core Data's layout: \(rows) rows")
        } catch {
            throw failure(verb: "store upgrade", "\(error)")
        }
    }
}
