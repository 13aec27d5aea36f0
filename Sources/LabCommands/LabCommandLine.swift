import ArgumentParser
import Foundation
import LabWorkloads

/// Runs an executable of the lab: parses the verb and its options, runs it, and exits with the lab's status.
public enum LabCommandLine {
    /// Runs `tool`'s command line on this process's arguments; a usage error exits 2 (bad input), as the
    /// help promises, not ArgumentParser's 64. The spellings `model` had before its subcommands still work
    /// (`ModelCommand.modernizing(_:)`).
    ///
    /// For example, the whole of `stacklab`'s entry point:
    /// ```swift
    /// @main
    /// enum StackLab: LabTool {
    ///     // commandName, abstract, workloads, verbs …
    ///     static func main() async { await LabCommandLine.main(Self.self) }
    /// }
    /// ```
    /// - Parameter tool: The executable: its name, workloads and verbs.
    public static func main<Tool: LabTool>(_ tool: Tool.Type) async {
        do {
            let arguments = ModelCommand.modernizing(Array(CommandLine.arguments.dropFirst()))
            var command = try RootCommand<Tool>.parseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            guard RootCommand<Tool>.exitCode(for: error) == .validationFailure else {
                RootCommand<Tool>.exit(withError: error)
            }
            FileHandle.standardError.write(Data((RootCommand<Tool>.fullMessage(for: error) + "\n").utf8))
            RootCommand<Tool>.exit(withError: ExitStatus.badInput.code)
        }
    }

    /// The name this program was started as (`stacklab`, `stacklab-bench`), for its messages.
    static var programName: String {
        CommandLine.arguments.first.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "stacklab"
    }
}
