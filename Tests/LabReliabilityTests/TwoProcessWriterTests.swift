import Foundation
import LabReliability
import LabWorkloads
import ObjectStack
import TestSupport
import Testing

/// Two processes writing one store file (SQLite in WAL mode, LMDB's shared environment), as an app and its
/// extension do: real child processes, started and reaped by the tests.
@Suite("Two processes writing one store")
struct TwoProcessWriterTests {
    /// CI's size; `STACKLAB_TWO_WRITER_KILLS=200` (or `stacklab crash-test --two-writers --kills 200`) is the full
    /// campaign.
    static let kills = Int(ProcessInfo.processInfo.environment["STACKLAB_TWO_WRITER_KILLS"] ?? "") ?? 8

    private func directory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stacklab-two-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test(
        "two processes saving and batch-inserting at once are never handed the same key, and lose nothing",
        arguments: StoreKind.fileStores)
    func concurrentWriters(store: StoreKind) throws {
        let folder = try directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("store.\(store.name)")
        let writers = (1...2).map { number in
            TwoWriterLoop(
                store: store, url: url, journal: folder.appendingPathComponent("journal-\(number)"), writer: number,
                seed: 11)
        }
        _ = try TwoWriterLoop.verify(writers)
        let batches: Int64 = 24
        let children = try writers.map { writer in
            let process = Process()
            process.executableURL = StackLabBinary.url
            process.arguments = [
                "child", "two-writer", "--store", store.name, "--path", url.path, "--journal", writer.journal.path,
                "--writer", String(writer.writer), "--seed", "11", "--limit", String(batches),
            ]
            process.standardOutput = FileHandle.nullDevice
            let errors = Pipe()
            process.standardError = errors
            try process.run()
            return (process, errors)
        }
        for (process, errors) in children {
            process.waitUntilExit()
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(process.terminationStatus == 0, "\(message)")
        }
        let outcome = try TwoWriterLoop.verify(writers)
        #expect(outcome.acknowledged == 2 * Int(batches))
        let expected = writers.map { writer in (1...batches).map { writer.entries(inBatch: $0) }.reduce(0, +) }
        #expect(outcome.entries == expected.reduce(0, +))
        #expect(outcome.keysHandedOut >= outcome.entries, "every stored key was handed out once")
    }

    /// What happened when the holder saved over a change made elsewhere.
    private struct ConflictOutcome: Equatable {
        var errorCode: String
        var storeTitle: StoreValue?
        var versionStep: Int64?
        var finalTitle: String?
        var finalCount: Int64?
    }

    /// The holder reads the shared item and changes its count; `change` sets its title elsewhere; the holder saves
    /// under `.error`, then under `.mergeByPropertyObjectTrump`.
    private func conflict(_ store: StoreKind, _ url: URL, change: () throws -> Void) throws -> ConflictOutcome {
        let holder = try SharedItem.openContext(store: store, at: url)
        defer { try? SharedItem.close(holder) }
        try holder.performAndWait { () throws in
            var request = FetchRequest<ManagedObject>(entityName: "Item")
            request.predicate = try FetchPredicate(format: "code == 'shared'")
            let item = try #require(try holder.fetch(request).first)
            try item.setValue(7, forKey: "count")
        }
        try change()
        return try holder.performAndWait { () throws in
            var outcome = ConflictOutcome(errorCode: "none")
            do {
                try holder.save()
            } catch let error as ObjectStackError {
                outcome.errorCode = "\(error.code)"
                let conflict = error.mergeConflicts.first
                outcome.storeTitle = conflict?.storeValues?["title"]
                outcome.versionStep = conflict.flatMap { conflict in
                    conflict.storeVersion.map { $0 - conflict.cachedVersion }
                }
            }
            holder.mergePolicy = .mergeByPropertyObjectTrump
            try holder.save()
            holder.reset()
            var request = FetchRequest<[String: Any]>(entityName: "Item")
            request.propertiesToFetch = ["title", "count"]
            let row = try #require(try holder.fetch(request).first)
            outcome.finalTitle = row["title"] as? String
            outcome.finalCount = (row["count"] as? NSNumber)?.int64Value
            return outcome
        }
    }

    @Test(
        "a save conflicts with another process's save or batch update exactly as with a second coordinator's",
        arguments: StoreKind.fileStores, [false, true])
    func conflictsAcrossProcesses(store: StoreKind, batch: Bool) throws {
        let folder = try directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let inProcess = folder.appendingPathComponent("one.\(store.name)")
        let acrossProcesses = folder.appendingPathComponent("two.\(store.name)")
        try SharedItem.seed(store: store, at: inProcess)
        try SharedItem.seed(store: store, at: acrossProcesses)
        let reference = try conflict(store, inProcess) {
            try SharedItem.setTitle("elsewhere", store: store, at: inProcess, batch: batch)
        }
        let observed = try conflict(store, acrossProcesses) {
            var arguments = [
                "child", "shared-item", "--store", store.name, "--path", acrossProcesses.path, "--title",
                "elsewhere",
            ]
            if batch { arguments.append("--batch") }
            let (status, output) = try StackLabBinary.run(arguments)
            #expect(status == 0 && output.contains("changed"), "\(output)")
        }
        #expect(
            reference
                == ConflictOutcome(
                    errorCode: "mergeConflict", storeTitle: .string("elsewhere"), versionStep: 1,
                    finalTitle: "elsewhere", finalCount: 7))
        #expect(observed == reference)
    }

    @Test(
        "a store that another process has grown (LMDB: its map) opens again and reads in this one",
        arguments: StoreKind.fileStores)
    func grownElsewhere(store: StoreKind) throws {
        let folder = try directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("store.\(store.name)")
        try SharedItem.seed(store: store, at: url)
        // Open here first, so this process's environment has the small map when the other process grows it.
        let first = try SharedItem.openContext(store: store, at: url)
        defer { try? SharedItem.close(first) }
        let (status, output) = try StackLabBinary.run([
            "child", "shared-item", "--store", store.name, "--path", url.path, "--title", "grown",
            "--fill-kilobytes", "6000",
        ])
        #expect(status == 0, "\(output)")
        // A second coordinator on the file: its open reads the file's metadata in this process's environment.
        let second = try SharedItem.openContext(store: store, at: url)
        defer { try? SharedItem.close(second) }
        for context in [first, second] {
            try context.performAndWait { () throws in
                #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Item")) == 6_001)
            }
        }
    }

    @Test(
        "two writers killed at random moments lose no acknowledged batch, tear none, and share no key",
        arguments: StoreKind.fileStores)
    func killCampaign(store: StoreKind) throws {
        let campaign = TwoWriterCampaign(
            CampaignSettings(
                executable: StackLabBinary.url, store: store, kills: Self.kills, seed: UInt64.random(in: 1...1_000_000))
        )
        let outcome = try campaign.run()
        #expect(outcome.kills == Self.kills)
        #expect(outcome.batchesAcknowledged > 0, "the writers got far enough to write before being killed")
    }
}
