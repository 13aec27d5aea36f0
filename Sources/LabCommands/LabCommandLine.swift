import ArgumentParser
import Foundation
import Lab

/// `stacklab`: runs scenarios on the ObjectStack API and compares Core Data stack designs.
@main
struct StackLabCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stacklab",
        abstract: "Measure and compare Core Data stack designs on ObjectStack (SQLite, LMDB, in-memory).",
        discussion: "Exit status: 0 ok, 1 a regression or failed check, 2 bad input, 3 a hang (fuzz).",
        subcommands: [
            RunCommand.self, ListCommand.self, CheckCommand.self, CompareCommand.self, GateCommand.self,
            MergeCommand.self, ReportCommand.self, DeclareCommand.self, ServeCommand.self,
            SeedStoreCommand.self, ModelCommand.self, VersionsCommand.self, CrashTestCommand.self,
            FuzzCommand.self, ExplainCommand.self, ChildCommand.self,
        ])

    /// Runs the verb; a usage error exits 2 (bad input), as the discussion promises, not ArgumentParser's 64.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
            FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
            exit(withError: ExitStatus.badInput.code)
        }
    }
}
