import ArgumentParser
import Foundation
import LabWorkloads

/// `stacklab store migrate STORE --model BUNDLE [--version FROM] [--to VERSION] [--hashes PLIST_OR_STORE]`.
struct StoreMigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Migrate a store file in place through its model bundle's history, to a later version.",
        discussion: """
            Walks the bundle's versions from the one that wrote STORE (matched from its model cache, or --version)
            to --to (default: the newest version, which .xccurrentversion does not always name): a lightweight
            migration at each step, in Core Data's layout for the new version. Each step is atomic: a kill leaves the
            store at the version before it, with every row. --hashes takes Core Data's version hashes of the target
            from a compiled model (.momd, or its VersionInfo.plist) or a store Core Data wrote at that version, and
            writes them with their digest and checksum; without it the metadata says ObjectStack wrote the store,
            and Core Data would migrate or refuse it. Work on a copy of your app's store.
            """)

    @Argument(help: "The store file (changed in place).") var store: String
    @Option(help: "The model bundle (.xcdatamodeld) whose versions the store walks.") var model: String
    @Option(help: "The version the store is at (default: matched from the store).") var version: String?
    @Option(help: "The version to reach (default: the newest).") var to: String?
    @Option(help: "A .momd (or its VersionInfo.plist) or a store Core Data wrote at the target version.")
    var hashes: String?

    func run() throws {
        do {
            let migration = try StoreFileMigration(
                store: URL(fileURLWithPath: store), bundle: URL(fileURLWithPath: model), from: version, to: to,
                hashes: hashes.map { URL(fileURLWithPath: $0) })
            print(try migration.run().text)
        } catch {
            throw failure(verb: "store migrate", "\(error)")
        }
    }
}
