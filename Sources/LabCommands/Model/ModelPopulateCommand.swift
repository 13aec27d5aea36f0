import ArgumentParser
import Foundation
import LabWorkloads

/// `stacklab model populate PATH --out STORE`: a new store of generated objects of one version of a model file,
/// every constraint held.
struct ModelPopulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "populate",
        abstract: "Build a new store of generated objects from a model file: --objects per root entity, each to-many "
            + "--children children, every constraint held.")

    @OptionGroup var file: ModelFileArguments
    @OptionGroup var population: PopulationArguments
    @Option(help: "The store file to create (it must not exist).") var out: String
    @Option(help: "The version to populate (default: the current one).") var version: String?

    func run() throws {
        do {
            let selection = try ModelFileSelection(
                path: file.path, relativeTo: nil, version: version, options: file.options)
            let plan = try PopulationPlan(model: selection.model, spec: population.spec, seed: population.seed)
            let result = try ModelPopulator.populateStore(
                plan, store: population.store, url: URL(fileURLWithPath: out))
            print(
                "\(out): \(population.store) store of \(selection.url.lastPathComponent), version "
                    + "\(selection.version.name), seed \(population.seed)")
            print(result.summary)
        } catch {
            throw failure(verb: "model populate", "\(error)")
        }
    }
}
