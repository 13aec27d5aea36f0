import Foundation
import Yams

extension ScenarioFile.Reader {
    /// Loads `model:` when it names a model file, through the registry's model-file loader, with `version:`,
    /// `population:`, `import_key:` and `store_file:` (a path relative to the scenario file, as `model:` is). Nil for
    /// a built-in model.
    /// - Throws: `LabError.invalidScenario` with `FILE:LINE:` and what is wrong: `version:`, `population:`,
    ///   `first_screen:` or `import_key:` given with a built-in model, an empty `import_key` list, no loader, or the
    ///   loader's problem at the line of the key it names.
    func loadModelFile(_ model: ModelReference, _ document: ScenarioFile.Document, root: Node, file: URL) throws
        -> (any LoadedModelFile)?
    {
        guard case .file(let path) = model else {
            for key in ["version", "population", "first_screen", "import_key", "store_file"]
            where root.mapping?[key] != nil {
                throw error(
                    line: keyLine(key, under: [], in: root),
                    "\(key) applies to a model file; model \(model) is built in")
            }
            return nil
        }
        guard let loader = workloads.modelFiles else {
            throw error(
                line: valueLine(["model"], in: root),
                "model file \(path): this build's workloads read no model files; use \(workloads.defaultModel)")
        }
        let importKeys = (document.importKey ?? [:]).mapValues(\.names)
        for (entity, names) in importKeys.sorted(by: { $0.key < $1.key }) where names.isEmpty || names.contains("") {
            throw error(
                line: keyLine(entity, under: ["import_key"], in: root),
                "import_key for \(entity) names no attribute; expected `\(entity): attribute` or a list of attributes")
        }
        do {
            return try loader.load(
                path: path, relativeTo: file.deletingLastPathComponent(), version: document.version,
                population: document.population, importKeys: importKeys, storeFile: document.storeFile
            ) { key in
                "\(self.path):\(self.keyLine(key, under: ["population"], in: root) ?? 1)"
            }
        } catch let problem as ModelFileProblem {
            switch problem.key {
            case .model: throw error(line: valueLine(["model"], in: root), problem.message)
            case .version: throw error(line: valueLine(["version"], in: root), problem.message)
            case .population(let key): throw error(line: keyLine(key, under: ["population"], in: root), problem.message)
            case .importKey(let entity):
                throw error(line: keyLine(entity, under: ["import_key"], in: root), problem.message)
            case .storeFile: throw error(line: valueLine(["store_file"], in: root), problem.message)
            }
        }
    }

    /// Checks `first_screen:` as far as the lab core can without the model: known keys, a limit of at least 1.
    /// - Throws: `LabError.invalidScenario` with `FILE:LINE:` and what is wrong.
    func checkFirstScreen(_ screen: FirstScreenSpec?, model: ModelReference, root: Node) throws {
        guard let screen else { return }
        let keys =
            root.mapping?.first { $0.key.string == "first_screen" }?.value.mapping?.compactMap(\.key.string) ?? []
        for key in keys where !FirstScreenSpec.keys.contains(key) {
            throw error(
                line: keyLine(key, under: ["first_screen"], in: root),
                "unknown key '\(key)' in first_screen; expected one of \(FirstScreenSpec.keys.joined(separator: ", "))")
        }
        if let limit = screen.limit, limit < 1 {
            throw error(
                line: valueLine(["first_screen", "limit"], in: root),
                "first_screen limit is \(limit); expected an integer ≥ 1")
        }
        if screen.sort?.contains(where: { $0.isEmpty || $0 == "-" }) == true {
            throw error(
                line: keyLine("sort", under: ["first_screen"], in: root),
                "first_screen sort has an empty key; expected attribute names, '-name' for descending")
        }
    }
}
