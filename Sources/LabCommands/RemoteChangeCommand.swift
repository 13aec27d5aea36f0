import ArgumentParser
import Foundation
import LabReliability
import LabWorkloads

/// `stacklab remote-change`: measures how soon a remote change notification reaches this process after another
/// process's commit.
struct RemoteChangeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remote-change",
        abstract: "Measure remote change notification latency between two processes on one store file.",
        discussion: "A child process saves and batch-inserts into a store with persistent history; this process "
            + "listens for persistentStoreRemoteChange and reports, per commit, the time from the child's commit "
            + "to the first notification whose history token reaches it. Exit status 1 when a commit was missed "
            + "or the p99 is above --target-ms.")
    @Option(help: ArgumentHelp("A file store (repeatable; default both).", valueName: "sqlite|lmdb"))
    var store: [StoreKind] = StoreKind.fileStores
    @Option(help: "Writes by the child.") var writes = 300
    @Option(help: "Milliseconds between the child's writes.") var intervalMs = 20
    @Option(help: "The p99 target in milliseconds.") var targetMs = 50.0

    func validate() throws {
        for kind in store { try kind.requireFile() }
        guard writes > 0, intervalMs >= 0 else { throw ValidationError("--writes must be positive") }
    }

    func run() throws {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var met = true
        for store in store {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "stacklab-remote-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let outcome = try RemoteChangeProbe.measure(
                executable: executable, store: store, at: folder.appendingPathComponent("remote.\(store.name)"),
                count: writes, interval: Double(intervalMs) / 1000)
            let ok = outcome.missed.isEmpty && outcome.percentile(99) <= targetMs
            met = met && ok
            print("\(store.name): \(outcome.summary) — \(ok ? "within" : "NOT within") \(targetMs) ms at p99")
        }
        if !met { throw ExitStatus.regression.code }
    }
}
