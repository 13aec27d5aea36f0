import Foundation
import ObjectStack

/// One child process of a kill campaign: a `stacklab child …` verb started from the stacklab binary, its `ready`
/// line awaited, then killed with SIGKILL and reaped. The campaigns (`KillCampaign`, `TwoWriterCampaign`,
/// `HistoryCampaign`) differ in what their children write and how they verify the store, not in this.
/// - Note: Not thread-safe: a campaign drives its children from one thread.
final class CampaignChild {
    /// The child.
    let process = Process()
    private let output = Pipe()
    private let errorPipe = Pipe()

    /// Starts `executable` (the stacklab binary) with `arguments`.
    /// - Throws: when the process cannot be started.
    init(executable: URL, arguments: [String]) throws {
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = errorPipe
        try process.run()
    }

    /// Waits for the child's `ready` line (it has opened the store and starts writing); false when it ended or
    /// `seconds` passed first.
    func waitForReady(seconds: Double = 120) -> Bool {
        let handle = output.fileHandleForReading
        let ready = LockedValue(false)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let data = handle.readData(ofLength: 6)
            ready.withLock { $0 = data.starts(with: Data("ready".utf8)) }
            done.signal()
        }
        guard done.wait(timeout: .now() + seconds) == .success else { return false }
        return ready.withLock { $0 }
    }

    /// Kills the child with SIGKILL (if it still runs) and reaps it.
    func stop() {
        // A child already reaped has given up its pid, which another process may now hold.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Whether it died by a signal (the campaign's kill) rather than exiting by itself.
    var wasKilled: Bool { process.terminationReason == .uncaughtSignal }

    /// What it wrote to standard error; read once it has ended.
    func errors() -> String {
        String(decoding: errorPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    /// Lets the child run a random while, then kills it: one kill in five lands while it starts (opening and
    /// recovering the store), the others a random moment up to `maximumRunMilliseconds` after its `ready`, however
    /// long a loaded machine takes to get there.
    /// - Parameters:
    ///   - role: the child as the messages name it ("the save loop").
    ///   - activity: what `ready` says it starts doing ("saving").
    /// - Throws: `SaveLoopError` naming `round` when it never got ready or exited by itself.
    func killAtRandomMoment(
        round: Int, maximumRunMilliseconds: Int, using random: inout some RandomNumberGenerator, role: String,
        activity: String
    ) throws {
        if random.next() % 5 == 0 {
            usleep(useconds_t(Int.random(in: 1...max(1, maximumRunMilliseconds / 4), using: &random) * 1_000))
        } else if !waitForReady() {
            stop()
            throw SaveLoopError("kill \(round): \(role) never started \(activity): \(errors())")
        } else {
            usleep(useconds_t(Int.random(in: 1...maximumRunMilliseconds, using: &random) * 1_000))
        }
        stop()
        guard wasKilled else {
            throw SaveLoopError(
                "kill \(round): \(role) exited by itself (status \(process.terminationStatus)): \(errors())")
        }
    }
}
