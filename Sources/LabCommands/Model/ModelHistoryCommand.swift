import ArgumentParser
import Foundation
import LabWorkloads

/// `stacklab model history PATH`: a store seeded at a model file's first version (or `--from`), migrated step by
/// step to the current one (or `--version`), with each step's verdict and time.
struct ModelHistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Seed a store at a model file's first version and migrate it step by step through the version "
            + "history, printing each step's verdict and time.")

    @OptionGroup var file: ModelFileArguments
    @OptionGroup var population: PopulationArguments
    @Option(help: "The first version (default: the first).") var from: String?
    @Option(help: "The last version (default: the current one).") var version: String?

    func run() throws {
        do {
            try runHistory()
        } catch {
            throw failure(verb: "model history", "\(error)")
        }
    }

    private func runHistory() throws {
        let selection = try ModelFileSelection(
            path: file.path, relativeTo: nil, version: version, options: file.options)
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
            entries: entries, from: first, to: last, spec: population.spec, seed: population.seed,
            store: population.store, directory: folder)
        print("\(selection.url.lastPathComponent): \(history.versionNames.joined(separator: " -> "))")
        print(history.text)
    }
}
