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
            "\(store.rawValue), history: survived \(kills) kills; \(last.transactions) transactions over "
                + "\(last.lastWrite) writes, \(last.rows) rows; every row change has its transaction and every "
                + "transaction its rows"
        }
    }

    public let executable: URL
    public let store: StoreKind
    public let kills: Int
    public let seed: UInt64
    /// The longest a child runs before its kill; the moment is random below it.
    public let maximumRunMilliseconds: Int

    /// A campaign of `kills` kills of writers started from `executable` (the stacklab binary).
    public init(executable: URL, store: StoreKind, kills: Int, seed: UInt64, maximumRunMilliseconds: Int = 400) {
        self.executable = executable
        self.store = store
        self.kills = kills
        self.seed = seed
        self.maximumRunMilliseconds = maximumRunMilliseconds
    }

    /// Runs the campaign in a fresh folder; throws `SaveLoopError` at the first disagreement, naming the kill.
    public func run(progress: (Int, HistoryLoop.Verification) -> Void = { _, _ in }) throws -> Outcome {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stacklab-history-kill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let loop = HistoryLoop(
            store: store, url: directory.appendingPathComponent("store.\(store.rawValue)"), seed: seed)
        var random = SplitMix64(seed: seed)
        var last = HistoryLoop.Verification(transactions: 0, rows: 0, lastWrite: 0)
        for round in 1...kills {
            let child = try CampaignChild(
                executable: executable,
                arguments: [
                    "child", "history-loop", "--store", store.rawValue, "--path", loop.url.path, "--seed", String(seed),
                ])
            // One kill in five lands while the writer starts (opening, recovering, reading the history); the
            // others once it writes.
            try child.killAtRandomMoment(
                round: round, maximumRunMilliseconds: maximumRunMilliseconds, using: &random,
                role: "the history writer", activity: "writing")
            do {
                last = try loop.verify()
            } catch {
                throw SaveLoopError("kill \(round) of \(kills) on \(store.rawValue) (seed \(seed)): \(error)")
            }
            progress(round, last)
        }
        return Outcome(store: store, kills: kills, last: last)
    }
}
