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
            "\(store.name): survived \(kills) kills; \(savesAcknowledged) saves acknowledged, "
                + "\(killsBetweenCommitAndJournal) kills between commit and journal, \(entries) entries, "
                + "nothing lost or torn"
        }
    }

    /// The binary, store, kills, seed and run time.
    public let settings: CampaignSettings

    /// A campaign of `settings.kills` kills of children started from `settings.executable` (the stacklab binary).
    public init(_ settings: CampaignSettings) {
        self.settings = settings
    }

    /// Runs the campaign in a fresh folder; throws `SaveLoopError` at the first damage, naming the kill.
    public func run(progress: (Int, SaveLoop.Verification) -> Void = { _, _ in }) throws -> Outcome {
        try settings.inScratchFolder("stacklab-kill") { directory in
            let loop = SaveLoop(
                store: settings.store,
                url: directory.appendingPathComponent("store.\(settings.store.name)"),
                journal: directory.appendingPathComponent("journal.txt"), seed: settings.seed)
            var random = SystemRandomNumberGenerator()
            var last = SaveLoop.Verification(lastSave: 0, acknowledged: 0, entries: 0)
            var ahead = 0
            for round in 1...settings.kills {
                let child = try CampaignChild(
                    executable: settings.executable,
                    arguments: [
                        "child", "save-loop", "--store", settings.store.name, "--path", loop.url.path,
                        "--journal", loop.journal.path, "--seed", String(settings.seed),
                    ])
                try child.killAtRandomMoment(
                    round: round, maximumRunMilliseconds: settings.maximumRunMilliseconds, using: &random,
                    role: "the save loop",
                    activity: "saving")
                do {
                    last = try loop.verify()
                } catch {
                    throw SaveLoopError(
                        "kill \(round) of \(settings.kills) on \(settings.store.name) (seed \(settings.seed)): \(error)"
                    )
                }
                if last.lastSave > last.acknowledged { ahead += 1 }
                progress(round, last)
            }
            return Outcome(
                store: settings.store, kills: settings.kills, savesAcknowledged: last.acknowledged,
                killsBetweenCommitAndJournal: ahead,
                entries: last.entries)
        }
    }
}
