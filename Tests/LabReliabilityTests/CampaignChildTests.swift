import Foundation
import Testing

@testable import LabReliability

/// The kill campaigns' child handling: a child that said `ready` is killed by the campaign; one that never says it,
/// or that exits by itself, fails the round with a message naming it.
@Suite("Campaign children")
struct CampaignChildTests {
    /// Never picks the early kill (one draw in five): every kill waits for `ready`.
    struct AfterReady: RandomNumberGenerator {
        mutating func next() -> UInt64 { 1 }
    }

    static let shell = URL(fileURLWithPath: "/bin/sh")

    func child(_ script: String) throws -> CampaignChild {
        try CampaignChild(executable: Self.shell, arguments: ["-c", script])
    }

    @Test("a child that said ready is killed by SIGKILL and reaped")
    func killedAfterReady() throws {
        var random = AfterReady()
        let running = try child("echo ready; exec sleep 30")
        try running.killAtRandomMoment(
            round: 1, maximumRunMilliseconds: 20, using: &random, role: "the test child", activity: "waiting")
        #expect(running.wasKilled)
        #expect(!running.process.isRunning)
    }

    @Test("a child that never says ready fails the round, with what it wrote to standard error")
    func neverReady() throws {
        var random = AfterReady()
        let failing = try child("echo 'cannot open the store' >&2; exit 3")
        #expect {
            try failing.killAtRandomMoment(
                round: 4, maximumRunMilliseconds: 20, using: &random, role: "the test child", activity: "waiting")
        } throws: { error in
            "\(error)" == "kill 4: the test child never started waiting: cannot open the store\n"
        }
    }

    @Test("a child that exits by itself after ready fails the round, naming its status")
    func exitsByItself() throws {
        var random = AfterReady()
        let quitting = try child("echo ready; exit 0")
        // Let it exit before the kill: the kill then finds nothing to kill.
        quitting.process.waitUntilExit()
        #expect {
            try quitting.killAtRandomMoment(
                round: 2, maximumRunMilliseconds: 1, using: &random, role: "the test child", activity: "waiting")
        } throws: { error in
            "\(error)".hasPrefix("kill 2: the test child exited by itself (status 0)")
        }
    }
}
