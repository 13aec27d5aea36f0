import ArgumentParser
import Foundation
import LabReliability
import LabWorkloads

/// `stacklab crash-test`: kills save loops at random moments and checks what survived.
struct CrashTestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crash-test",
        abstract: "SIGKILL save loops at random moments and check that no acknowledged save is lost or torn.",
        discussion: "With --two-writers, two processes save and batch-insert into one store and both are killed each "
            + "round; the check adds that no primary key was handed out to both. With --history, a writer saves and "
            + "runs batch requests on a store with persistent history; after each kill the history must agree with "
            + "the rows (no row change without its transaction, no transaction without its rows).")
    @Option(help: ArgumentHelp("A file store (repeatable; default both).", valueName: "sqlite|lmdb"))
    var store: [StoreKind] = StoreKind.fileStores
    @Option(help: "Kills per store.") var kills = 50
    @Option(help: "Seed of the batch sizes.") var seed: UInt64 = 1
    @Option(help: "Longest run of a child before its kill, in ms.") var maxRunMs = 400
    @Flag(help: "Two writers on one store, saving and batch-inserting, both killed each round.") var twoWriters = false
    @Flag(help: "A writer with persistent history; the history must agree with the rows after each kill.")
    var history = false

    func validate() throws {
        for kind in store { try kind.requireFile() }
    }

    func run() throws {
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
}
