import ArgumentParser
import Foundation
import LabWorkloads
import ObjectStack

/// `stacklab store migrate STORE --model BUNDLE [--version FROM] [--to VERSION] [--hashes PLIST_OR_STORE]
/// [--mapping DIR]`.
struct StoreMigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Migrate a store file in place through its model bundle's history, to a later version.",
        discussion: """
            Walks the bundle's versions from the one that wrote STORE (matched from its model cache, or --version)
            to --to (default: the newest version, which .xccurrentversion does not always name), in Core Data's
            layout for each new version. A step the project ships an Xcode mapping model for (.xcmappingmodel, found
            near the bundle as Xcode's build finds them, or under --mapping) runs it; the others are lightweight
            (inferred). Each line names the step's kind, its rows and its time. A mapping model naming a custom
            migration policy class is refused before anything is written: this program cannot load your Swift
            policy; run that step through the library, StoreFileMigration.mappingModelSteps(_:policies:) with the
            policy registered, or stop before it with --to. Each step is atomic: a kill leaves the store at the
            version before it, with every row. --hashes takes Core Data's version hashes of the target from a
            compiled model (.momd, or its VersionInfo.plist) or a store Core Data wrote at that version, and writes
            them with their digest and checksum; without it the metadata says ObjectStack wrote the store, and Core
            Data would migrate or refuse it. Work on a copy of your app's store.
            """)

    @Argument(help: "The store file (changed in place).") var store: String
    @Option(help: "The model bundle (.xcdatamodeld) whose versions the store walks.") var model: String
    @Option(help: "The version the store is at (default: matched from the store).") var version: String?
    @Option(help: "The version to reach (default: the newest).") var to: String?
    @Option(help: "A .momd (or its VersionInfo.plist) or a store Core Data wrote at the target version.")
    var hashes: String?
    @Option(
        help: ArgumentHelp(
            "Where the mapping models are (a folder searched below, or one .xcmappingmodel); default: near the bundle.",
            valueName: "DIR"))
    var mapping: String?

    func run() throws {
        do {
            let bundle = URL(fileURLWithPath: model)
            let found =
                mapping.map { MappingModelSearch.mappingModels(in: URL(fileURLWithPath: $0)) }
                ?? MappingModelSearch.mappingModels(near: bundle)
            // A mapping model that does not read would leave its step to a lightweight migration the project did
            // not choose: refuse instead.
            if let unreadable = found.unreadable.first {
                throw ValidationError(
                    "the mapping model \(unreadable.url.path) does not read: \(unreadable.reason); fix it, or name "
                        + "a folder without it with --mapping")
            }
            let migration = try StoreFileMigration(
                store: URL(fileURLWithPath: store), bundle: bundle, from: version, to: to,
                hashes: hashes.map { URL(fileURLWithPath: $0) },
                stepMigration: StoreFileMigration.mappingModelSteps(found.models))
            do {
                try migration.checkPolicies(found.models, policies: EntityMigrationPolicies())
            } catch let error as ObjectStackError {
                throw ValidationError(
                    "\(error.message). A command-line program cannot load your Swift policy: migrate through the "
                        + "library, StoreFileMigration.mappingModelSteps(_:policies:) with a policy registered under "
                        + "that class name, or stop before that step with --to")
            }
            print(try migration.run().text)
        } catch let error as ValidationError {
            throw failure(verb: "store migrate", error.message)
        } catch {
            throw failure(verb: "store migrate", "\(error)")
        }
    }
}
