import ArgumentParser
import Foundation
import LabReliability
import LabWorkloads

/// `stacklab child history-writer`: saves and batch-inserts into a store with persistent history, printing when
/// each write committed (the other process of the remote change measurement and test).
struct HistoryWriterChildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history-writer", abstract: "Write into a store with history, reporting each commit (for tests).")
    @Option(help: "sqlite or lmdb.") var store: StoreKind
    @Option(help: "The store file.") var path: String
    @Option(help: "How many writes.") var count = 20
    @Option(help: "Milliseconds between writes.") var intervalMs = 20

    func validate() throws { try store.requireFile() }

    func run() throws {
        try RemoteChangeProbe.write(
            store: store, at: URL(fileURLWithPath: path), count: count, interval: Double(intervalMs) / 1000)
    }
}
