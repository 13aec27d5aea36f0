import ArgumentParser
import Foundation
import LabReliability
import LabWorkloads
import ObjectStack

/// `stacklab crash-test`: kills save loops at random moments and checks what survived.
struct CrashTestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crash-test",
        abstract:
            "SIGKILL save loops at random moments, or replay power cuts from their recorded I/O, and check that no "
            + "acknowledged save is lost or torn.",
        discussion: "With --two-writers, two processes save and batch-insert into one store and both are killed each "
            + "round; the check adds that no primary key was handed out to both. With --history, a writer saves and "
            + "runs batch requests on a store with persistent history; after each kill the history must agree with "
            + "the rows (no row change without its transaction, no transaction without its rows). With --power-loss, "
            + "a save loop runs with its I/O recorded (the StackLabIOLog library preloaded), and crash states built "
            + "from the log, as a power cut could leave the files, are opened and checked: each must open, pass its "
            + "integrity check, hold no torn save, and (at durability full) keep every acknowledged save. Exit status: "
            + "0 nothing found, 1 a durability broke its promise (full: any failure; normal: any but lost saves; off: "
            + "none, it is measured), 2 bad input (a malformed log or recording).")
    @Option(help: ArgumentHelp("A file store (repeatable; default both).", valueName: "sqlite|lmdb"))
    var store: [StoreKind] = StoreKind.fileStores
    @Option(help: "Kills per store.") var kills = 50
    @Option(help: "Seed of the batch sizes (with --power-loss, of the crash states too).") var seed: UInt64 = 1
    @Option(help: "Longest run of a child before its kill, in ms.") var maxRunMs = 400
    @Flag(help: "Two writers on one store, saving and batch-inserting, both killed each round.") var twoWriters = false
    @Flag(help: "A writer with persistent history; the history must agree with the rows after each kill.")
    var history = false
    @Flag(help: "Power cuts, not kills: replay crash states from a save loop's recorded I/O.") var powerLoss = false
    @Option(help: "Power loss: crash states checked per store and durability.") var states = 200
    @Option(help: "Power loss: a durability to test (repeatable; default all three).")
    var durability: [Durability] = Durability.allCases
    @Option(help: "Power loss: saves the recorded loop makes.") var saves: Int64 = 200
    @Option(help: "Power loss: checker processes at once (default: one per core).") var jobs: Int?
    @Option(help: ArgumentHelp("Power loss: keep the recordings in this folder.", valueName: "folder"))
    var keep: String?
    @Option(
        help: ArgumentHelp(
            "Power loss: check the recordings kept in this folder instead of recording.", valueName: "folder"))
    var replay: String?
    @Option(help: ArgumentHelp("Power loss: write the table as CSV to this file.", valueName: "file")) var out: String?

    func validate() throws {
        for kind in store { try kind.requireFile() }
        if powerLoss, twoWriters || history {
            throw ValidationError("--power-loss, --two-writers and --history are separate tests; give one")
        }
        if !powerLoss, keep != nil || replay != nil || out != nil {
            throw ValidationError("--keep, --replay and --out go with --power-loss")
        }
        guard states >= 1, saves >= 1, (jobs ?? 1) >= 1 else {
            throw ValidationError("--states, --saves and --jobs must be at least 1")
        }
    }

    func run() throws {
        if powerLoss { return try runPowerLoss() }
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        func settings(_ store: StoreKind) -> CampaignSettings {
            CampaignSettings(
                executable: executable, store: store, kills: kills, seed: seed, maximumRunMilliseconds: maxRunMs)
        }
        if history {
            for store in store {
                let campaign = HistoryCampaign(settings(store))
                let outcome = try campaign.run { round, state in
                    if round % 20 == 0 {
                        print("\(store.name): \(round) kills, \(state.transactions) transactions in the history")
                    }
                }
                print(outcome.summary)
            }
            return
        }
        if twoWriters {
            for store in store {
                let campaign = TwoWriterCampaign(settings(store))
                let outcome = try campaign.run { round, state in
                    if round % 20 == 0 {
                        print("\(store.name): \(round) rounds, \(state.acknowledged) batches acknowledged")
                    }
                }
                print(outcome.summary)
            }
            return
        }
        for store in store {
            let campaign = KillCampaign(settings(store))
            let outcome = try campaign.run { kill, state in
                if kill % 10 == 0 { print("\(store.name): \(kill) kills, store at save \(state.lastSave)") }
            }
            print(outcome.summary(store: store))
        }
    }

    // MARK: - Power loss

    /// Records a save loop per store and durability (or reads the kept recordings), checks their crash states,
    /// prints the table and exits 1 when a durability broke its promise.
    private func runPowerLoss() throws {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let campaign = PowerLossCampaign(executable: executable, states: states, seed: seed, jobs: jobs)
        let started = Date()
        var outcomes: [PowerLossCampaign.Outcome] = []
        func check(_ recording: PowerLossRecording) throws {
            let name = "\(recording.manifest.store) \(recording.manifest.durability)"
            let total = states
            let outcome = try campaign.check(recording) { done in
                if done % 250 == 0 || done == total { print("\(name): \(done) of \(total) crash states checked") }
            }
            print(
                "\(name): \(outcome.saves) saves recorded, \(outcome.events) I/O events (\(outcome.calls)), "
                    + "\(outcome.syncPoints) sync points")
            for example in outcome.examples { print("  \(example)") }
            outcomes.append(outcome)
        }
        do {
            if let replay {
                for recording in try PowerLossRecording.all(in: URL(fileURLWithPath: replay)) { try check(recording) }
            } else {
                for store in store {
                    for durability in durability {
                        let folder =
                            keep.map { URL(fileURLWithPath: $0).appendingPathComponent("\(store.name)-\(durability)") }
                            ?? FileManager.default.temporaryDirectory.appendingPathComponent(
                                "stacklab-power-loss-\(UUID().uuidString)")
                        defer { if keep == nil { try? FileManager.default.removeItem(at: folder) } }
                        print("\(store.name) \(durability): recording \(saves) saves")
                        try check(
                            try PowerLossRecording.record(
                                executable: executable, store: store, durability: durability, saves: saves,
                                seed: seed, in: folder))
                    }
                }
            }
        } catch let error as IOLogError {
            throw failure(verb: "crash-test", error.description)
        }
        print(PowerLossCampaign.Outcome.table(outcomes))
        if let out {
            let csv = PowerLossCampaign.Outcome.csv(outcomes, seed: seed, started: started)
            do {
                try Data(csv.utf8).write(to: URL(fileURLWithPath: out))
            } catch {
                throw failure(verb: "crash-test", "cannot write \(out): \(error.localizedDescription)")
            }
        }
        let broken = outcomes.filter(\.breaksPromise)
        if !broken.isEmpty {
            throw failure(
                verb: "crash-test",
                "broke its promise: " + broken.map { "\($0.store.name) \($0.durability)" }.joined(separator: ", "),
                status: .regression)
        }
    }
}
