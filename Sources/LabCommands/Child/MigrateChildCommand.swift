import ArgumentParser
import Foundation
import LabReliability
import LabWorkloads

/// `stacklab child migrate`: migrates a pod store, optionally killing itself partway (the tests' crash check).
struct MigrateChildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate", abstract: "Migrate a pod store to a later model version (for tests).")

    @Option(help: ArgumentHelp("The store.", valueName: "sqlite|lmdb")) var store = StoreKind.sqlite
    @Option(help: "The store file.") var path: String
    @Option(help: "The pod model version to migrate to.") var toVersion = 2
    @Option(help: "Rows per write transaction.") var batchSize = 10_000
    @Option(help: "SIGKILL this process once this share of the copy is done.") var killAtFraction: Double?
    @Option(help: ArgumentHelp("SIGKILL this process on reaching a phase.", valueName: "copying|replacing"))
    var killInPhase: String?
    @Flag(help: "Migrate through the pod model's mapping model (built in code) instead of a lightweight migration.")
    var mapping = false
    @Option(help: "Migrate a store Core Data wrote through this .xcmappingmodel (with --model).") var mappingModel:
        String?
    @Option(help: "The .xcdatamodeld bundle the mapping model's versions are in.") var model: String?

    func validate() throws {
        try store.requireFile()
        guard (2...3).contains(toVersion) else { throw ValidationError("--to-version must be 2 or 3") }
        if (mappingModel == nil) != (model == nil) {
            throw ValidationError("--mapping-model and --model go together")
        }
        if mapping && mappingModel != nil {
            throw ValidationError("--mapping is the pod model's; leave out --mapping-model")
        }
        if let killInPhase, MigrationProbe.phase(named: killInPhase) == nil {
            throw ValidationError("--kill-in-phase must be preparing, copying, replacing or finished")
        }
    }

    func run() throws {
        var killPoint: MigrationProbe.KillPoint?
        if let killAtFraction { killPoint = .fraction(killAtFraction) }
        if let killInPhase, let phase = MigrationProbe.phase(named: killInPhase) { killPoint = .phase(phase) }
        var method = MigrationProbe.Method.lightweight
        if mapping { method = .podMapping }
        if let mappingModel, let model {
            method = .mappingModel(URL(fileURLWithPath: mappingModel), bundle: URL(fileURLWithPath: model))
        }
        let probe = MigrationProbe(
            store: store, url: URL(fileURLWithPath: path), toVersion: toVersion, batchSize: batchSize,
            killPoint: killPoint, method: method)
        do {
            print(try probe.run().summary(toVersion: toVersion))
        } catch {
            throw failure(verb: "child migrate", "\(error)", status: .regression)
        }
    }
}
