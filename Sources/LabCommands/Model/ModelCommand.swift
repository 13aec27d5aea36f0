import ArgumentParser

/// `stacklab model`: what the lab does with an Xcode model file, one subcommand per task — `describe` (the
/// default, so `stacklab model PATH` describes), `populate` and `history`.
///
/// A verb group is this shape: a command with no `run()` of its own that lists its subcommands, each a
/// `ParsableCommand` in the group's folder, sharing options through `@OptionGroup` (`ModelFileOptions`,
/// `PopulationOptions`).
struct ModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Describe an Xcode model file (.xcdatamodel or .xcdatamodeld), populate a store from it, or migrate "
            + "a store through its version history.",
        subcommands: [ModelDescribeCommand.self, ModelPopulateCommand.self, ModelHistoryCommand.self],
        defaultSubcommand: ModelDescribeCommand.self)

    /// The command line with the spellings `model` had before its subcommands (`model PATH --populate N --out
    /// STORE`, `model PATH --history`) as the subcommands they became, so scripts and notes that use them keep
    /// working; any other command line is returned as it is.
    ///
    /// For example, `["model", "M.xcdatamodeld", "--history", "--populate", "5"]` becomes
    /// `["model", "history", "M.xcdatamodeld", "--objects", "5"]`.
    static func modernizing(_ arguments: [String]) -> [String] {
        guard arguments.first == "model", arguments.count > 1,
            !configuration.subcommands.contains(where: { $0.configuration.commandName == arguments[1] })
        else { return arguments }
        var rest = Array(arguments.dropFirst())
        let subcommand: String
        if let history = rest.firstIndex(of: "--history") {
            rest.remove(at: history)
            subcommand = "history"
        } else if rest.contains("--populate") {
            subcommand = "populate"
        } else {
            return arguments
        }
        return ["model", subcommand] + rest.map { $0 == "--populate" ? "--objects" : $0 }
    }
}
