import ArgumentParser
import Foundation
import LabReliability
import LabWorkloads

/// `stacklab child history-loop`: saves and runs batch requests on a store with persistent history until killed
/// (the history crash test's child).
struct HistoryLoopChildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history-loop", abstract: "Write with persistent history until killed (crash tests).")
    @Option(help: "sqlite or lmdb.") var store: StoreKind
    @Option(help: "The store file.") var path: String
    @Option(help: "Decides the writes' sizes and targets.") var seed: UInt64 = 1
    @Option(help: "Stop after this many writes (default: never).") var limit: Int64 = .max

    func validate() throws { try store.requireFile() }

    func run() throws {
        try HistoryLoop(store: store, url: URL(fileURLWithPath: path), seed: seed).run(limit: limit)
    }
}
