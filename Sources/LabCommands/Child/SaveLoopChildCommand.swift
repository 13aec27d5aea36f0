import ArgumentParser
import Foundation
import LabReliability
import LabWorkloads
import ObjectStack

/// `stacklab child save-loop`: saves in a loop with a journal until killed (the crash campaign's child).
struct SaveLoopChildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "save-loop", abstract: "Save in a loop with a journal until killed (crash tests).")
    @Option(help: "sqlite or lmdb.") var store: StoreKind
    @Option(help: "The store file.") var path: String
    @Option(help: "The journal of acknowledged saves.") var journal: String
    @Option(help: "Decides the batch sizes.") var seed: UInt64 = 1
    @Option(help: "Stop after this save (default: never).") var limit: Int64 = .max
    @Option(help: "The store's durability (default: the store's own).") var durability: Durability?

    func validate() throws { try store.requireFile() }

    func run() throws {
        try SaveLoop(
            store: store, url: URL(fileURLWithPath: path), journal: URL(fileURLWithPath: journal), seed: seed,
            durability: durability
        ).run(limit: limit)
    }
}
