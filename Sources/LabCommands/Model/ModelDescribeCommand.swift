import ArgumentParser
import Foundation
import LabWorkloads

/// `stacklab model describe PATH` (or `stacklab model PATH`): a model file's versions, entities, warnings and the
/// migrations between versions, as text, one line per version (`--summary`), one version (`--version V`) or JSON.
struct ModelDescribeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "describe",
        abstract: "Describe a model file: its versions (skipped ones with the reason), entities, warnings and the "
            + "migrations between versions.")

    @OptionGroup var file: ModelFileArguments
    @Flag(help: "Print per-version counts as JSON.") var json = false
    @Flag(help: "Print one line per version: its counts and whether the migration to it is lightweight.")
    var summary = false
    @Option(help: "Describe this version only: its entities and the migration to it.") var version: String?

    func validate() throws {
        if summary && (json || version != nil) {
            throw ValidationError("--summary lists every version as text; leave out --json and --version")
        }
        if json && version != nil {
            throw ValidationError("--json lists every version; leave out --version, or drop --json to describe one")
        }
    }

    func run() throws {
        do {
            let description = try ModelDescription(contentsOf: URL(fileURLWithPath: file.path), options: file.options)
            if json {
                print(try description.json())
            } else if summary {
                print(description.summary)
            } else if let version {
                print(try description.text(version: version))
            } else {
                print(description.text)
            }
        } catch {
            throw failure(verb: "model describe", "\(error)")
        }
    }
}
