import ArgumentParser

/// An executable's root command: `Tool`'s verbs as subcommands.
struct RootCommand<Tool: LabTool>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: Tool.commandName,
            abstract: Tool.abstract,
            discussion: "Exit status: 0 ok, 1 a regression or failed check, 2 bad input, 3 a hang (fuzz).",
            subcommands: Tool.verbs.map { $0.command(for: Tool.self) })
    }
}
