import Foundation
import LabWorkloads
import ObjectStack

/// Kills a `stacklab child history-loop` writer with SIGKILL at random moments, again and again on one store with
/// persistent history, and checks after each kill that the history and the rows agree (`HistoryLoop.verify`).
public struct HistoryCampaign: Sendable {
    /// What the campaign survived.
    public struct Outcome: Sendable {
        public let store: StoreKind
        public let kills: Int
        /// The last verification: transactions, rows and the last write in the history.
        public let last: HistoryLoop.Verification

        /// One line for `stacklab crash-test --history`.
        public var summary: String {
            "\(store.name), history: survived \(kills) kills; \(last.transactions) transactions over "
                + "\(last.lastWrite) writes, \(last.rows) rows; every row change has its transaction and every "
                + "transaction its rows"
        }
    }

    /// The binary, store, kills, seed and run time.
    public let settings: CampaignSettings

    /// A campaign of `settings.kills` kills of writers started from `settings.executable` (the stacklab binary).
    public init(_ settings: CampaignSettings) {
        self.settings = settings
    }

    /// Runs the campaign in a fresh folder; throws `SaveLoopError` at the first disagreement, naming the kill.
    public func run(progress: (Int, HistoryLoop.Verification) -> Void = { _, _ in }) throws -> Outcome {
        try settings.inScratchFolder("stacklab-history-kill") { directory in
            let loop = HistoryLoop(
                store: settings.store,
                url: directory.appendingPathComponent("store.\(settings.store.name)"), seed: settings.seed)
            var random = SplitMix64(seed: settings.seed)
            var last = HistoryLoop.Verification(transactions: 0, rows: 0, lastWrite: 0)
            for round in 1...settings.kills {
                let child = try CampaignChild(
                    executable: settings.executable,
                    arguments: [
                        "child", "history-loop", "--store", settings.store.name, "--path", loop.url.path,
                        "--seed", String(settings.seed),
                    ])
                // One kill in five lands while the writer starts (opening, recovering, reading the history); the
                // others once it writes.
                try child.killAtRandomMoment(
                    round: round, maximumRunMilliseconds: settings.maximumRunMilliseconds, using: &random,
                    role: "the history writer", activity: "writing")
                do {
                    last = try loop.verify()
                } catch {
                    throw SaveLoopError(
                        "kill \(round) of \(settings.kills) on \(settings.store.name) (seed \(settings.seed)): \(error)"
                    )
                }
                progress(round, last)
            }
            return Outcome(store: settings.store, kills: settings.kills, last: last)
        }
    }
}
