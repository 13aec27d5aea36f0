import Foundation
import LabWorkloads
import ObjectStack
import TestSupport
import Testing

@testable import LabReliability

/// Power cuts replayed from a real save loop's recorded I/O: what the engines write and sync, and what each
/// durability keeps. CI's sample is small and seeded; `stacklab crash-test --power-loss --states 2000` is the release
/// run (the lab's Reliability checks article has its table).
@Suite("Power loss", .serialized)
struct PowerLossTests {
    /// CI's sample: crash states per store and durability, and the saves recorded.
    static let states = Int(ProcessInfo.processInfo.environment["STACKLAB_POWER_LOSS_STATES"] ?? "") ?? 40
    static let saves: Int64 = 40

    static func record(_ store: StoreKind, _ durability: Durability) throws -> PowerLossRecording {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("power-loss-\(UUID().uuidString)")
        return try PowerLossRecording.record(
            executable: StackLabBinary.url, store: store, durability: durability, saves: saves, seed: 5, in: folder)
    }

    @Test("the recorder logs the opens, writes and syncs the engine makes, and the acknowledgements, in order")
    func recorder() throws {
        let sqlite = try Self.record(.sqlite, .full)
        defer { try? FileManager.default.removeItem(at: sqlite.folder) }
        let log = try IOLog(contentsOf: sqlite.log)
        let acknowledged = log.events.compactMap { event -> String? in
            guard case .acknowledgement(let length, let at) = event else { return nil }
            return String(decoding: log.bytes(at: at, count: length), as: UTF8.self)
        }
        #expect(acknowledged == (1...Self.saves).map { "\($0)\n" })
        // At full, SQLite syncs its write-ahead log after each commit, before the save returns.
        var writesSinceSync = 0
        var unsyncedAtAck = 0
        for event in log.events {
            switch event {
            case .write: writesSinceSync += 1
            case .sync: writesSinceSync = 0
            case .acknowledgement: if writesSinceSync > 0 { unsyncedAtAck += 1 }
            default: break
            }
        }
        #expect(unsyncedAtAck == 0, "every save was synced before its acknowledgement")

        let lmdb = try Self.record(.lmdb, .full)
        defer { try? FileManager.default.removeItem(at: lmdb.folder) }
        let lmdbLog = try IOLog(contentsOf: lmdb.log)
        // LMDB's default commit: pages with pwrite or writev, fdatasync, then the meta page through a descriptor
        // opened O_DSYNC; the data file is mapped read-only (no MDB_WRITEMAP).
        var synchronous: Set<Int32> = []
        var dataFile: Set<Int32> = []
        var metaWrites = 0
        var dataMaps = 0
        for event in lmdbLog.events {
            switch event {
            case .open(let fd, let flags, let path):
                if path.hasSuffix("store.lmdb") { dataFile.insert(fd) } else { dataFile.remove(fd) }
                if path.hasSuffix("store.lmdb") && flags & O_DSYNC != 0 {
                    synchronous.insert(fd)
                } else {
                    synchronous.remove(fd)
                }
            case .write(_, let fd, let offset, _, _) where synchronous.contains(fd):
                #expect(offset < 8_192, "only the meta pages are written through the O_DSYNC descriptor")
                metaWrites += 1
            case .map(let fd, let protection, _) where dataFile.contains(fd):
                #expect(protection & PROT_WRITE == 0, "the data file is mapped read-only")
                dataMaps += 1
            default: break
            }
        }
        #expect(metaWrites >= Int(Self.saves))
        #expect(dataMaps > 0)
        #expect(lmdbLog.summary.contains("fdatasync"))
    }

    @Test(
        "full keeps every acknowledged save; neither full nor normal opens damaged or tears a save",
        arguments: [StoreKind.sqlite, .lmdb], [Durability.full, .normal])
    func promises(store: StoreKind, durability: Durability) throws {
        let recording = try Self.record(store, durability)
        defer { try? FileManager.default.removeItem(at: recording.folder) }
        let outcome = try PowerLossCampaign(executable: StackLabBinary.url, states: Self.states, seed: 11).check(
            recording)
        #expect(outcome.states == Self.states)
        #expect(outcome.failedToOpen == 0 && outcome.failedIntegrity == 0 && outcome.torn == 0, "\(outcome.examples)")
        if durability == .full { #expect(outcome.lostAcknowledged == 0, "\(outcome.examples)") }
        #expect(!outcome.breaksPromise)
    }

    @Test(
        "the check finds the acknowledged saves a replay that dropped synced writes would lose",
        arguments: StoreKind.fileStores)
    func droppedSyncedWrites(store: StoreKind) throws {
        let recording = try Self.record(store, .full)
        defer { try? FileManager.default.removeItem(at: recording.folder) }
        let check = try PowerLossCheck(recording: recording)
        let end = CrashState(number: 0, point: check.replay.eventCount, kind: .prefix, torn: false, seed: 0)
        let folder = recording.folder.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try check.replay.materialize(end, in: folder)
        #expect(check.examine(folder, as: end).isClean)
        // The base: the store as it was before the loop, every synced write of the log dropped.
        try FileManager.default.removeItem(at: folder)
        try FileManager.default.copyItem(at: recording.base, to: folder)
        let verdict = check.examine(folder, as: end)
        #expect(verdict.lostSaves == Self.saves && verdict.lastSave == 0, "\(verdict.summary)")
        #expect(!verdict.isClean)
    }

    @Test("the check names a relationship whose inverse is missing", arguments: StoreKind.fileStores)
    func brokenInverse(store: StoreKind) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("inverse-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let loop = SaveLoop(
            store: store, url: folder.appendingPathComponent("store"),
            journal: folder.appendingPathComponent("journal"),
            seed: 3)
        try loop.run(limit: 4)
        #expect(try loop.examine().lastSave == 4)
        let context = try loop.openContext()
        try context.performAndWait {
            let entry = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Entry")).first)
            try entry.setValue(nil, forKey: "ledger")
            try context.save()
        }
        for coordinatorStore in context.persistentStoreCoordinator!.persistentStores {
            try context.persistentStoreCoordinator!.remove(coordinatorStore)
        }
        let error = try #require(throws: SaveLoopError.self) { try loop.examine() }
        #expect(error.description.contains("the ledger's entries relationship holds"), "\(error)")
    }

    @Test("a recording whose log is malformed is refused naming the line")
    func malformedRecording() throws {
        let recording = try Self.record(.sqlite, .off)
        defer { try? FileManager.default.removeItem(at: recording.folder) }
        var text = try String(contentsOf: recording.log, encoding: .utf8)
        text = text.replacingOccurrences(of: "\npwrite ", with: "\npwrote ")
        try text.write(to: recording.log, atomically: true, encoding: .utf8)
        let replayed = try PowerLossRecording(folder: recording.folder)
        #expect(replayed.manifest.store == "sqlite")
        let error = try #require(throws: IOLogError.self) { try PowerLossCheck(recording: replayed) }
        #expect(error.description.contains("iolog.txt:") && error.description.contains("unknown event 'pwrote'"))
    }
}
