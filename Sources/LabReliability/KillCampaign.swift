import Foundation
import LabWorkloads
import ObjectStack

/// Kills a `stacklab child save-loop` child with SIGKILL at random moments, again and again on one store, and
/// checks after each kill that the store holds every acknowledged save in full and no save in part.
public struct KillCampaign: Sendable {
    /// What the campaign survived.
    public struct Outcome: Sendable {
        public let store: StoreKind
        public let kills: Int
        /// Saves the journal acknowledged over the whole campaign.
        public let savesAcknowledged: Int64
        /// Kills after which the store held one save more than the journal: killed between commit and journal.
        public let killsBetweenCommitAndJournal: Int
        public let entries: Int

        /// One line for `stacklab crash-test`.
        public func summary(store: StoreKind) -> String {
            "\(store.rawValue): survived \(kills) kills; \(savesAcknowledged) saves acknowledged, "
                + "\(killsBetweenCommitAndJournal) kills between commit and journal, \(entries) entries, "
                + "nothing lost or torn"
        }
    }

    public let executable: URL
    public let store: StoreKind
    public let kills: Int
    public let seed: UInt64
    /// The longest a child runs before its kill; the moment is random below it.
    public let maximumRunMilliseconds: Int

    /// A campaign of `kills` kills of children started from `executable` (the stacklab binary).
    public init(executable: URL, store: StoreKind, kills: Int, seed: UInt64, maximumRunMilliseconds: Int = 400) {
        self.executable = executable
        self.store = store
        self.kills = kills
        self.seed = seed
        self.maximumRunMilliseconds = maximumRunMilliseconds
    }

    /// Runs the campaign in a fresh folder; throws `SaveLoopError` at the first damage, naming the kill.
    public func run(progress: (Int, SaveLoop.Verification) -> Void = { _, _ in }) throws -> Outcome {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stacklab-kill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let loop = SaveLoop(
            store: store, url: directory.appendingPathComponent("store.\(store.rawValue)"),
            journal: directory.appendingPathComponent("journal.txt"), seed: seed)
        var random = SystemRandomNumberGenerator()
        var last = SaveLoop.Verification(lastSave: 0, acknowledged: 0, entries: 0)
        var ahead = 0
        for round in 1...kills {
            let child = try CampaignChild(
                executable: executable,
                arguments: [
                    "child", "save-loop", "--store", store.rawValue, "--path", loop.url.path, "--journal",
                    loop.journal.path, "--seed", String(seed),
                ])
            try child.killAtRandomMoment(
                round: round, maximumRunMilliseconds: maximumRunMilliseconds, using: &random, role: "the save loop",
                activity: "saving")
            do {
                last = try loop.verify()
            } catch {
                throw SaveLoopError("kill \(round) of \(kills) on \(store.rawValue) (seed \(seed)): \(error)")
            }
            if last.lastSave > last.acknowledged { ahead += 1 }
            progress(round, last)
        }
        return Outcome(
            store: store, kills: kills, savesAcknowledged: last.acknowledged, killsBetweenCommitAndJournal: ahead,
            entries: last.entries)
    }
}
