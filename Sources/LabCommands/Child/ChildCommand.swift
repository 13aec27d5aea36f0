import ArgumentParser
import LabWorkloads

/// `stacklab child`, hidden: the processes the lab and its tests start and watch (a launch, a save loop to
/// kill, a migration to kill, a store held open, a concurrency violation to trap). Not for people.
struct ChildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "child", abstract: "Child processes the lab and its tests start (not for direct use).",
        shouldDisplay: false,
        subcommands: [
            LaunchChildCommand.self, SaveLoopChildCommand.self, MigrateChildCommand.self, HoldStoreChildCommand.self,
            ConcurrencyViolationChildCommand.self, TwoWriterChildCommand.self, SharedItemChildCommand.self,
            HistoryWriterChildCommand.self, HistoryLoopChildCommand.self, ExtensionImportChildCommand.self,
            PowerLossCheckChildCommand.self,
        ])
}
