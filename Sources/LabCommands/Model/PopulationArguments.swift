import ArgumentParser
import LabWorkloads

/// How `stacklab model populate` and `history` generate a store's objects: how many, on which store, from which
/// seed.
struct PopulationArguments: ParsableArguments {
    @Option(help: "Objects per root entity to generate.") var objects = 100
    @Option(help: ArgumentHelp("The store file's engine.", valueName: "sqlite|lmdb")) var store = StoreKind.sqlite
    @Option(help: "The seed: the same seed gives the same store.") var seed: UInt64 = 1
    @Option(help: "Children per to-many, drawn uniformly (for example 0-4, or 2-10).") var children = "0-4"

    func validate() throws {
        try store.requireFile()
        if objects < 0 { throw ValidationError("--objects must be 0 or more") }
        guard PopulationSpec.range(.text(children)) != nil || Int(children) != nil else {
            throw ValidationError("--children must be a range such as 0-4")
        }
    }

    /// What to generate.
    var spec: PopulationSpec {
        let range = PopulationSpec.range(Int(children).map(ScenarioValue.integer) ?? .text(children)) ?? 0...4
        return PopulationSpec(rootCount: objects, children: range)
    }
}
