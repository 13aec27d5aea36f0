import ArgumentParser
import ObjectStack

/// The model file every `stacklab model` subcommand reads, and how strictly.
struct ModelFileArguments: ParsableArguments {
    @Argument(help: "The model file (.xcdatamodel or .xcdatamodeld).") var path: String
    @Flag(help: "Refuse the file at the first attribute or element the reader does not know (otherwise a warning).")
    var strict = false

    /// How the reader treats what it does not know.
    var options: ModelFileOptions { strict ? .strict : .lenient }
}
