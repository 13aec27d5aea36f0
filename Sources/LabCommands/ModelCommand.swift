import ArgumentParser
import Foundation
import LabWorkloads
import ObjectStack

/// `stacklab model PATH`: describe an Xcode model file, build a store of generated data from it
/// (`--populate N --out STORE`), or time a store's migration through its version history (`--history`).
struct ModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Describe an Xcode model file (.xcdatamodel or .xcdatamodeld), populate a store from it, or migrate "
            + "a store through its version history.",
        discussion: """
            stacklab model PATH [--strict]           versions (skipped ones with the reason), entities, warnings and
                                                     migrations between versions; --strict refuses a warning
            stacklab model PATH --version V          one version: its entities and the migration to it
            stacklab model PATH --summary            one line per version: counts and the migration to it
            stacklab model PATH --populate N --out STORE [--store sqlite|lmdb] [--version V] [--seed S]
                                                     a new store of generated objects: N per root entity, each
                                                     to-many 0-4 children (--children), every constraint held
            stacklab model PATH --history [--populate N] [--from V] [--version V] [--store sqlite|lmdb]
                                                     seed at the first version (or --from), migrate step by step
                                                     to the current one (or --version), print verdicts and times
            """)

    @Argument(help: "The model file.") var path: String
    @Flag(help: "Print per-version counts as JSON.") var json = false
    @Flag(help: "Print one line per version: its counts and whether the migration to it is lightweight.")
    var summary = false
    @Option(help: "Objects per root entity to generate.") var populate: Int?
    @Option(help: "The store file to create (it must not exist).") var out: String?
    @Option(help: ArgumentHelp("The store file's engine.", valueName: "sqlite|lmdb")) var store = StoreKind.sqlite
    @Option(help: "The version to describe or populate, or the last of --history (default: all; the current one).")
    var version: String?
    @Option(help: "The first version of --history (default: the first).") var from: String?
    @Option(help: "The seed: the same seed gives the same store.") var seed: UInt64 = 1
    @Option(help: "Children per to-many, drawn uniformly (for example 0-4, or 2-10).") var children = "0-4"
    @Flag(help: "Migrate a seeded store through the version history and time each step.") var history = false
    @Flag(help: "Refuse the file at the first attribute or element the reader does not know (otherwise a warning).")
    var strict = false

    private var options: ModelFileOptions { strict ? .strict : .lenient }

    func validate() throws {
        try store.requireFile()
        if let populate, populate < 0 { throw ValidationError("--populate must be 0 or more") }
        if history {
            if out != nil { throw ValidationError("--history works in a temporary folder; leave out --out") }
        } else if populate != nil {
            guard out != nil else { throw ValidationError("--populate needs --out STORE, the store file to create") }
        } else if out != nil || from != nil {
            throw ValidationError("--out and --from go with --populate N or --history")
        } else if summary && (json || version != nil) {
            throw ValidationError("--summary lists every version as text; leave out --json and --version")
        } else if json && version != nil {
            throw ValidationError("--json lists every version; leave out --version, or drop --json to describe one")
        }
        if summary && (history || populate != nil) {
            throw ValidationError("--summary describes the file; leave out --populate and --history")
        }
        guard PopulationSpec.range(.text(children)) != nil || Int(children) != nil else {
            throw ValidationError("--children must be a range such as 0-4")
        }
    }

    func run() throws {
        do {
            if history {
                try runHistory()
            } else if let populate, let out {
                try runPopulate(populate, out: out)
            } else {
                let description = try ModelDescription(contentsOf: URL(fileURLWithPath: path), options: options)
                if json {
                    print(try description.json())
                } else if summary {
                    print(description.summary)
                } else if let version {
                    print(try description.text(version: version))
                } else {
                    print(description.text)
                }
            }
        } catch let error as ExitCode {
            throw error
        } catch {
            throw failure(verb: "model", "\(error)")
        }
    }

    private var spec: PopulationSpec {
        let range = PopulationSpec.range(Int(children).map(ScenarioValue.integer) ?? .text(children)) ?? 0...4
        return PopulationSpec(rootCount: populate ?? 100, children: range)
    }

    private func runPopulate(_ count: Int, out: String) throws {
        let selection = try ModelFileSelection(path: path, relativeTo: nil, version: version, options: options)
        let plan = try PopulationPlan(model: selection.model, spec: spec, seed: seed)
        let result = try ModelPopulator.populateStore(
            plan, store: store, url: URL(fileURLWithPath: out))
        print(
            "\(out): \(store) store of \(selection.url.lastPathComponent), version \(selection.version.name), seed \(seed)"
        )
        print(result.summary)
    }

    private func runHistory() throws {
        let selection = try ModelFileSelection(path: path, relativeTo: nil, version: version, options: options)
        // The history runs over every version, a skipped one (pre-Xcode-4 layout) reported as unavailable.
        let entries = selection.list.entries
        var last = selection.entryIndex
        // A bundle may name its first version current (CoreDataPlus): its history then runs to the newest readable.
        if version == nil, last == 0 { last = entries.lastIndex { $0.version != nil } ?? last }
        var first = 0
        if let from {
            guard let index = entries.firstIndex(where: { $0.name == from || "\($0.name).xcdatamodel" == from }) else {
                throw LabError(
                    .invalidScenario,
                    "--from: \(selection.url.lastPathComponent) has no version '\(from)'; expected one of "
                        + entries.map { "'\($0.name)'" }.joined(separator: ", "))
            }
            first = index
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stacklab-history-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let history = try ModelHistory.run(
            entries: entries, from: first, to: last, spec: spec, seed: seed,
            store: store, directory: folder)
        print("\(selection.url.lastPathComponent): \(history.versionNames.joined(separator: " -> "))")
        print(history.text)
    }
}
