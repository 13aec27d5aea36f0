import ArgumentParser
import Foundation
import LabWorkloads

/// `stacklab store upgrade STORE --model MODEL`.
struct StoreUpgradeCommand: ParsableCommand {
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
