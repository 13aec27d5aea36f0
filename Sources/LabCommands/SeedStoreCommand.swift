import ArgumentParser
import Foundation
import LabWorkloads

/// `stacklab seed-store`: a store of N pods for startup and migration runs.
struct SeedStoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seed-store", abstract: "Build a store of N pods for startup and migration runs.",
        discussion: "The same seed gives the same pods. Pod model versions: 1 base; 2 adds `stars`; 3 renames "
            + "`summary` to `tagline` (renaming identifier).")

    @Option(help: ArgumentHelp("The store file's engine.", valueName: "sqlite|lmdb")) var store = StoreKind.sqlite
    @Option(help: "Pods to write (10000 to 1000000 are the sizes the startup lab uses).") var objects = 10_000
    @Option(help: "The pod model version (1 to 3).") var modelVersion = 1
    @Option(help: "The store file to create.") var out: String
    @Option(help: "The random seed.") var seed: UInt64 = 42
    @Option(help: "Pods per write transaction.") var batchSize = 10_000
    @Flag(help: "Replace an existing store at --out.") var force = false

    func validate() throws {
        try store.requireFile()
        guard objects >= 0, batchSize > 0 else {
            throw ValidationError("--objects must be 0 or more, --batch-size positive")
        }
        guard PodModel.versions.contains(modelVersion) else {
            throw ValidationError("--model-version must be 1, 2 or 3, not \(modelVersion)")
        }
    }

    func run() throws {
        let seeder = PodStoreSeeder(
            store: store, objects: objects, modelVersion: modelVersion, url: URL(fileURLWithPath: out), seed: seed,
            batchSize: batchSize, replacesExisting: force)
        do {
            print(try seeder.run().summary)
        } catch {
            throw failure(verb: "seed-store", "\(error)")
        }
    }
}
