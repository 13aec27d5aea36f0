import Foundation
import Yams

extension ScenarioFile.Reader {
    /// A scenario's model file, loaded, and its population, read and checked.
    struct ModelFile {
        let selection: ModelFileSelection
        let population: PopulationSpec
    }

    /// Loads `model:` when it names a model file, relative to the scenario file, at the version `version:` names
    /// (the current one by default), reads `population:`, and plans the population once so a model the generator
    /// cannot populate is refused here, before any run. Nil for a built-in model.
    /// - Throws: `LabError.invalidScenario` with `FILE:LINE:` and what is wrong: no file at the path, a file the
    ///   reader refuses, an unknown version, a population that names no entity of the model or is not a count, a
    ///   model the generator cannot populate; `version:` or `population:` given with a built-in model.
    func loadModelFile(_ model: ModelReference, _ document: ScenarioFile.Document, root: Node, file: URL) throws -> ModelFile? {
        guard case .file(let path) = model else {
            for key in ["version", "population"] where root.mapping?[key] != nil {
                throw error(line: keyLine(key, under: [], in: root),
                    "\(key) applies to a model file; model \(model) is built in")
            }
            return nil
        }
        let selection: ModelFileSelection
        do {
            selection = try ModelFileSelection(path: path, relativeTo: file.deletingLastPathComponent(), version: document.version)
        } catch let failure as LabError {
            let key = failure.message.contains("has no version") ? "version" : "model"
            throw error(line: valueLine([key], in: root), failure.message)
        }
        let population = try PopulationSpec(document.population ?? [:]) { key in
            "\(self.path):\(self.keyLine(key, under: ["population"], in: root) ?? 1)"
        }
        for name in population.counts.keys.sorted() where selection.model.entitiesByName[name] == nil {
            throw error(line: keyLine(name, under: ["population"], in: root),
                "population names entity '\(name)', which \(selection.version.name) does not have; expected count, children or one of "
                    + selection.model.entities.map(\.name).joined(separator: ", "))
        }
        do {
            _ = try PopulationPlan(model: selection.model, spec: population, seed: 1)
        } catch let refusal as PopulationRefusal {
            throw error(line: valueLine(["model"], in: root), "\(refusal)")
        }
        return ModelFile(selection: selection, population: population)
    }
}
