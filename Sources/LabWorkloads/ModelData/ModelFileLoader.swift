import Foundation
import LabCore
import ObjectStack

/// The stack side's model-file loader for scenario files: loads the file with the Xcode model-file reader,
/// chooses the version, reads the population and plans it once, so a model the generator cannot populate is
/// refused when the scenario is read, before any run.
public struct ModelFileLoader: ModelFileLoading {
    /// Creates the loader.
    public init() {}

    /// Loads and checks a scenario's model file.
    /// - Throws: `ModelFileProblem` for no file at the path, a file the reader refuses, an unknown version, a
    ///   population naming an entity the model lacks, a model the generator cannot populate, or an import key
    ///   naming an entity the model lacks or an attribute its entity does not store, a store file that is missing or
    ///   that no version of the model wrote (naming file and model); `LabError` (with its place) for a population
    ///   value that is not a count.
    public func load(
        path: String, relativeTo directory: URL, version: String?, population: [String: ScenarioValue]?,
        importKeys: [String: [String]] = [:], storeFile: String? = nil, location: (String) -> String
    ) throws -> any LoadedModelFile {
        let selection: ModelFileSelection
        do {
            selection = try ModelFileSelection(path: path, relativeTo: directory, version: version)
        } catch let failure as LabError {
            throw ModelFileProblem(failure.message.contains("has no version") ? .version : .model, failure.message)
        }
        let spec = try PopulationSpec(population ?? [:], place: location)
        for name in spec.counts.keys.sorted() where selection.model.entitiesByName[name] == nil {
            throw ModelFileProblem(
                .population(name),
                "population names entity '\(name)', which \(selection.version.name) does not have; expected count, children or one of "
                    + selection.model.entities.map(\.name).joined(separator: ", "))
        }
        do {
            _ = try PopulationPlan(model: selection.model, spec: spec, seed: 1)
        } catch let refusal as PopulationRefusal {
            // A count the scenario gave is at fault: the error is at its line under `population:`.
            throw ModelFileProblem(refusal.populationKey.map { .population($0) } ?? .model, "\(refusal)")
        }
        try Self.checkImportKeys(importKeys, in: selection)
        var loaded = ScenarioModelFile(selection: selection, population: spec, importKeys: importKeys)
        if let storeFile {
            // Resolved as `model:` is: against the scenario file's folder, unless absolute.
            let url =
                storeFile.hasPrefix("/")
                ? URL(fileURLWithPath: storeFile) : directory.appendingPathComponent(storeFile)
            do {
                loaded.storeFile = try ScenarioStoreFile(url: url.standardizedFileURL, selection: selection)
            } catch let failure as LabError {
                throw ModelFileProblem(.storeFile, failure.message)
            }
        }
        return loaded
    }

    /// Refuses an import key naming an entity the version lacks, or an attribute its entity does not store (or
    /// one of a type that cannot be matched: transformable).
    static func checkImportKeys(_ keys: [String: [String]], in selection: ModelFileSelection) throws {
        let model = selection.model
        for (name, attributes) in keys.sorted(by: { $0.key < $1.key }) {
            guard let entity = model.entitiesByName[name] else {
                throw ModelFileProblem(
                    .importKey(name),
                    "import_key names entity '\(name)', which \(selection.version.name) does not have; expected one of "
                        + model.entities.map(\.name).joined(separator: ", "))
            }
            let usable = entity.attributes.filter { !$0.isTransient && $0.type != .transformable }
            for attribute in attributes where !usable.contains(where: { $0.name == attribute }) {
                throw ModelFileProblem(
                    .importKey(name),
                    "import_key \(name).\(attribute): \(name) has no stored attribute '\(attribute)' to find its objects by; "
                        + "expected one of " + usable.map(\.name).joined(separator: ", "))
            }
        }
    }
}

/// A scenario's model file, loaded: the chosen version and the population the generator makes.
public struct ScenarioModelFile: LoadedModelFile {
    /// The file and its chosen version.
    public let selection: ModelFileSelection
    /// How many objects of each entity the generator makes (`population:`, defaults filled in).
    public let population: PopulationSpec
    /// The attributes an import finds each entity's objects by (`import_key:`), instead of its uniqueness
    /// constraint; a sub-entity without its own uses its nearest super-entity's.
    public var importKeys: [String: [String]] = [:]
    /// The store the scenario runs on (`store_file:`), nil when the workload seeds one.
    public var storeFile: ScenarioStoreFile?

    public var description: String {
        "version \(selection.version.name), \(selection.model.entities.count) entities"
            + (storeFile.map { ", on \($0)" } ?? "")
    }
}

extension Scenario {
    /// For a scenario on a model file: the file loaded, with the version `version:` chose.
    public var modelFile: ModelFileSelection? { (loadedModelFile as? ScenarioModelFile)?.selection }
    /// For a scenario on a model file: the population `population:` gave, defaults filled in.
    public var population: PopulationSpec? { (loadedModelFile as? ScenarioModelFile)?.population }
}
