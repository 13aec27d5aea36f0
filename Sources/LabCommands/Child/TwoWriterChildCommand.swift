import ArgumentParser
import Foundation
import LabReliability
import LabWorkloads

/// `stacklab child two-writer`: one of two processes writing one store, saving and batch-inserting with a journal
/// of the keys it was handed, until killed (the two-writer crash test's child).
struct TwoWriterChildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "two-writer", abstract: "Write batches beside another process until killed (crash tests).")
    @Option(help: "sqlite or lmdb.") var store: StoreKind
    @Option(help: "The store file.") var path: String
    @Option(help: "The journal of keys handed out and batches acknowledged.") var journal: String
    @Option(help: "The writer's number (1 or 2).") var writer: Int
    @Option(help: "Decides the batch sizes.") var seed: UInt64 = 1
    @Option(help: "Stop after this batch (default: never).") var limit: Int64 = .max

    func validate() throws { try store.requireFile() }

    func run() throws {
        try TwoWriterLoop(
            store: store, url: URL(fileURLWithPath: path), journal: URL(fileURLWithPath: journal),
            writer: writer, seed: seed
        ).run(limit: limit)
    }
}
