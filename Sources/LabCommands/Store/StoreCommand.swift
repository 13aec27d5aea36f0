import ArgumentParser

/// `stacklab store`: store files Core Data or ObjectStack wrote, one subcommand per task — `describe`, `migrate` and `upgrade`
/// (the verb-group shape of `stacklab model`).
struct StoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Describe or migrate a store file Core Data wrote, or upgrade one ObjectStack wrote.",
        subcommands: [StoreDescribeCommand.self, StoreMigrateCommand.self, StoreUpgradeCommand.self])
}
