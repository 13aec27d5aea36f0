import Foundation
import LabWorkloads
import ObjectStack

/// Starts two `stacklab child two-writer` processes on one store, kills both with SIGKILL at random moments, again
/// and again, and checks after each round that the store holds every batch either writer acknowledged, no batch in
/// part, and that no primary key was handed out to both.
public struct TwoWriterCampaign: Sendable {
    /// What the campaign survived.
    public struct Outcome: Sendable {
        public let store: StoreKind
        public let kills: Int
        /// Batches the writers' journals acknowledged over the whole campaign.
        public let batchesAcknowledged: Int
        /// Rounds after which a batch was in the store but not in its writer's journal (killed between commit and
        /// journal).
        public let killsBetweenCommitAndJournal: Int
        public let entries: Int
        /// Keys the journals show handed out, each to one batch of one writer.
        public let keysHandedOut: Int

        /// One line for `stacklab crash-test --two-writers`.
        public var summary: String {
            "\(store.name), two writers: survived \(kills) kills; \(batchesAcknowledged) batches acknowledged, "
                + "\(killsBetweenCommitAndJournal) kills between commit and journal, \(entries) entries, "
                + "\(keysHandedOut) keys handed out, none twice; nothing lost or torn"
        }
    }

    /// The binary, store, kills, seed and run time.
    public let settings: CampaignSettings

    /// A campaign of `settings.kills` rounds of two writers started from `settings.executable` (the stacklab binary).
    public init(_ settings: CampaignSettings) {
        self.settings = settings
    }

    /// Runs the campaign in a fresh folder; throws `SaveLoopError` at the first damage, naming the round.
    public func run(progress: (Int, TwoWriterLoop.Verification) -> Void = { _, _ in }) throws -> Outcome {
        try settings.inScratchFolder("stacklab-two-writers") { directory in
            let url = directory.appendingPathComponent("store.\(settings.store.name)")
            let writers = (1...2).map { number in
                TwoWriterLoop(
                    store: settings.store, url: url, journal: directory.appendingPathComponent("journal-\(number).txt"),
                    writer: number, seed: settings.seed)
            }
            // The store exists before the writers race to open it.
            _ = try TwoWriterLoop.verify(writers)
            var random = SystemRandomNumberGenerator()
            var last = TwoWriterLoop.Verification(acknowledged: 0, entries: 0, keysHandedOut: 0, unacknowledged: 0)
            var ahead = 0
            for round in 1...settings.kills {
                let children = try writers.map { try start($0) }
                // One round in five kills while the writers start and open the store; the others once both write.
                if random.next() % 5 == 0 {
                    usleep(
                        useconds_t(
                            Int.random(in: 1...max(1, settings.maximumRunMilliseconds / 4), using: &random) * 1_000))
                } else {
                    for child in children where !child.waitForReady() {
                        for other in children { other.stop() }
                        throw SaveLoopError("round \(round): a writer never started writing: \(child.errors())")
                    }
                    usleep(useconds_t(Int.random(in: 1...settings.maximumRunMilliseconds, using: &random) * 1_000))
                }
                // The second writer dies a moment after the first: mid-transaction, or waiting for the other's.
                children[0].stop()
                usleep(useconds_t(Int.random(in: 0...30_000, using: &random)))
                children[1].stop()
                for child in children where !child.wasKilled {
                    throw SaveLoopError(
                        "round \(round): a writer exited by itself (status \(child.process.terminationStatus)): "
                            + child.errors())
                }
                do {
                    last = try TwoWriterLoop.verify(writers)
                } catch {
                    throw SaveLoopError(
                        "round \(round) of \(settings.kills) on \(settings.store.name) (seed \(settings.seed)): \(error)"
                    )
                }
                if last.unacknowledged > 0 { ahead += 1 }
                progress(round, last)
            }
            return Outcome(
                store: settings.store, kills: settings.kills, batchesAcknowledged: last.acknowledged,
                killsBetweenCommitAndJournal: ahead,
                entries: last.entries, keysHandedOut: last.keysHandedOut)
        }
    }

    /// Starts one writer.
    private func start(_ loop: TwoWriterLoop) throws -> CampaignChild {
        try CampaignChild(
            executable: settings.executable,
            arguments: [
                "child", "two-writer", "--store", settings.store.name, "--path", loop.url.path,
                "--journal", loop.journal.path, "--writer", String(loop.writer), "--seed", String(settings.seed),
            ])
    }
}
