import Foundation
import LabWorkloads
import ObjectStack

/// Builds crash states of a recording and checks each as an app would find it after a power cut: the store must
/// open (recovering as its engine does: SQLite replays its write-ahead log, LMDB takes its newest whole meta
/// page), pass its integrity check, hold whole saves only, and keep every save acknowledged before the cut.
///
/// For example:
/// ```swift
/// let check = try PowerLossCheck(recording: PowerLossRecording(folder: folder))
/// let verdict = check.check(check.replay.state(0, of: 100, seed: 1), in: scratch)
/// ```
/// - Note: Not thread-safe: a checker process runs its states one after another.
public struct PowerLossCheck: Sendable {
    public let recording: PowerLossRecording
    public let replay: CrashReplay

    /// A checker of `recording`'s states.
    /// - Throws: `IOLogError` when the recording's log cannot be read or replayed.
    public init(recording: PowerLossRecording) throws {
        self.recording = recording
        replay = try CrashReplay(log: IOLog(contentsOf: recording.log), base: recording.base)
        _ = try recording.store
        _ = try recording.durability
    }

    /// Builds `state` in a fresh folder under `scratch`, opens and checks it, and removes the folder.
    /// - Parameter opened: called once the store has opened, before it is checked (a checker process reports it,
    ///   so a crash after it is known to be the check's, not the open's).
    public func check(_ state: CrashState, in scratch: URL, opened: () -> Void = {}) -> CrashStateVerdict {
        let folder = scratch.appendingPathComponent("state-\(state.number)-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try replay.materialize(state, in: folder)
        } catch {
            var verdict = CrashStateVerdict(state: state, acknowledged: replay.acknowledged(before: state.point))
            verdict.openFailure = "the state could not be built: \(error)"
            return verdict
        }
        return examine(folder, as: state, opened: opened)
    }

    /// Opens the store files in `folder` as they stand (the files of `state`, built or not by `materialize`) and
    /// checks them against what was acknowledged before `state`'s point.
    public func examine(_ folder: URL, as state: CrashState, opened: () -> Void = {}) -> CrashStateVerdict {
        var verdict = CrashStateVerdict(state: state, acknowledged: replay.acknowledged(before: state.point))
        let loop: SaveLoop
        do {
            loop = SaveLoop(
                store: try recording.store, url: folder.appendingPathComponent(recording.manifest.storeFile),
                journal: folder.appendingPathComponent("journal.txt"), seed: recording.manifest.seed,
                durability: try recording.durability)
        } catch {
            verdict.openFailure = "\(error)"
            return verdict
        }
        let context: ManagedObjectContext
        do {
            context = try loop.openContext()
        } catch {
            verdict.openFailure = "\(error)"
            return verdict
        }
        opened()
        let coordinator = context.persistentStoreCoordinator!
        defer {
            context.performAndWait { context.reset() }
            for store in coordinator.persistentStores { try? coordinator.remove(store) }
        }
        if let store = coordinator.persistentStores.first as? any StoreIntegrityChecking {
            do {
                verdict.integrityProblems = try store.checkIntegrity()
            } catch {
                verdict.integrityProblems = ["the check could not read the store: \(error)"]
            }
        }
        do {
            let contents = try loop.examine(in: context)
            verdict.lastSave = contents.lastSave
            if contents.lastSave > verdict.acknowledged + 1 {
                verdict.tornSave =
                    "the store holds save \(contents.lastSave), beyond the one in flight after \(verdict.acknowledged)"
            }
        } catch let error as SaveLoopError {
            verdict.tornSave = error.description
        } catch {
            verdict.integrityProblems.append("reading the saves failed: \(error)")
        }
        return verdict
    }
}
