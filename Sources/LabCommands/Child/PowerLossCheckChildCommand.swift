import ArgumentParser
import Foundation
import LabReliability

/// `stacklab child power-loss-check`: builds crash states of a power-loss recording and checks each, printing
/// `begin N`, `opened N` once the store opened, and `verdict JSON` (the campaign's checker).
struct PowerLossCheckChildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "power-loss-check", abstract: "Check crash states of a power-loss recording (crash tests).")
    @Option(help: "The recording's folder.") var recording: String
    @Option(help: "States in the plan.") var total: Int
    @Option(help: "The seed of the states' choices.") var seed: UInt64
    @Option(help: "The first state to check.") var first: Int
    @Option(help: "How many states to check.") var count: Int
    @Option(help: "The folder to build the states in (default: the temporary folder).") var scratch: String?

    func run() throws {
        let check: PowerLossCheck
        do {
            check = try PowerLossCheck(recording: PowerLossRecording(folder: URL(fileURLWithPath: recording)))
        } catch {
            throw failure(verb: "child power-loss-check", "\(error)")
        }
        let scratch = self.scratch.map { URL(fileURLWithPath: $0) } ?? FileManager.default.temporaryDirectory
        let encoder = JSONEncoder()
        func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
        for number in first..<min(first + count, total) {
            say("begin \(number)")
            // A state that sends the engine into a loop must not stop the campaign: SIGALRM ends this process and
            // the campaign counts the state as hung.
            alarm(120)
            let verdict = check.check(check.replay.state(number, of: total, seed: seed), in: scratch) {
                say("opened \(number)")
            }
            alarm(0)
            say("verdict " + String(decoding: try encoder.encode(verdict), as: UTF8.self))
        }
    }
}
