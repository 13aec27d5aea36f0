import Foundation
import LabWorkloads
import ObjectStack

/// Checks the crash states of power-loss recordings in `stacklab child power-loss-check` processes and sums up what
/// each store and durability promised, as measured: states that did not open or failed integrity, acknowledged
/// saves lost, saves torn.
///
/// For example:
/// ```swift
/// let campaign = PowerLossCampaign(executable: stacklab, states: 2_000, seed: 1)
/// let outcome = try campaign.check(recording) { done in print(done) }
/// print(outcome.breaksPromise)
/// ```
/// A state that makes the checker die (an engine reading garbage can fault) or hang (two minutes) counts as a failed
/// open, or a failed integrity check once the store had opened; the checker starts again after it.
public struct PowerLossCampaign: Sendable {
    /// What the crash states of one recording showed.
    public struct Outcome: Sendable {
        public let store: StoreKind
        public let durability: Durability
        /// Saves the recorded loop made, and the I/O they took.
        public let saves: Int64
        public let events: Int
        public let syncPoints: Int
        /// What the log holds, by call (`writev 1200, pwrite 640, …`).
        public let calls: String
        public let states: Int
        public let failedToOpen: Int
        public let failedIntegrity: Int
        /// States that lost at least one acknowledged save, and the most one lost.
        public let lostAcknowledged: Int
        public let mostLost: Int64
        /// States with a save there in part (or a store that disagrees with itself).
        public let torn: Int
        /// The first states found wanting, one line each.
        public let examples: [String]

        /// Whether the states break what the durability promises: `full` every acknowledged save, whole; `normal` a
        /// whole store; `off` nothing (its losses are measured, not promised).
        public var breaksPromise: Bool {
            switch durability {
            case .full: failedToOpen + failedIntegrity + torn + lostAcknowledged > 0
            case .normal: failedToOpen + failedIntegrity + torn > 0
            case .off: false
            }
        }
    }

    /// The stacklab binary the checkers run.
    public let executable: URL
    /// Crash states per recording.
    public let states: Int
    /// The seed of the states' choices.
    public let seed: UInt64
    /// Checker processes run side by side.
    public let jobs: Int

    /// How many examples an outcome keeps.
    static let exampleLimit = 5
    /// How long a checker may take over one state before it is taken for hung.
    static let stateSeconds: UInt32 = 120

    /// A campaign of `states` states per recording, in `jobs` checkers at a time (default: one per core).
    public init(executable: URL, states: Int, seed: UInt64, jobs: Int? = nil) {
        self.executable = executable
        self.states = states
        self.seed = seed
        self.jobs = max(1, jobs ?? ProcessInfo.processInfo.activeProcessorCount)
    }

    /// Checks `states` crash states of `recording`; `progress` gets the number done so far (from any thread).
    /// - Throws: `IOLogError` when the recording cannot be replayed; `SaveLoopError` when a checker cannot start.
    public func check(_ recording: PowerLossRecording, progress: @Sendable (Int) -> Void = { _ in }) throws -> Outcome {
        let check = try PowerLossCheck(recording: recording)
        let verdicts = LockedValue<[Int: CrashStateVerdict]>([:])
        let failure = LockedValue<(any Error)?>(nil)
        let share = (states + jobs - 1) / jobs
        DispatchQueue.concurrentPerform(iterations: jobs) { job in
            let range = min(states, job * share)..<min(states, (job + 1) * share)
            do {
                try run(range, of: recording, check: check) { verdict in
                    let done = verdicts.withLock { verdicts in
                        verdicts[verdict.state.number] = verdict
                        return verdicts.count
                    }
                    progress(done)
                }
            } catch {
                failure.withLock { if $0 == nil { $0 = error } }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        let all = verdicts.withLock { $0 }.sorted { $0.key < $1.key }.map(\.value)
        return Outcome(
            store: try recording.store, durability: try recording.durability, saves: recording.manifest.saves,
            events: check.replay.eventCount, syncPoints: check.replay.syncPoints.count,
            calls: check.replay.log.summary, states: all.count,
            failedToOpen: all.filter { $0.openFailure != nil }.count,
            failedIntegrity: all.filter { !$0.integrityProblems.isEmpty }.count,
            lostAcknowledged: all.filter { $0.lostSaves > 0 }.count, mostLost: all.map(\.lostSaves).max() ?? 0,
            torn: all.filter { $0.tornSave != nil }.count,
            examples: all.filter { !$0.isClean }.prefix(Self.exampleLimit).map(\.summary))
    }

    /// Runs checkers over `range` until every state in it has a verdict: a checker that dies on a state leaves a
    /// verdict saying so, and the next starts after it.
    private func run(
        _ range: Range<Int>, of recording: PowerLossRecording, check: PowerLossCheck,
        _ record: (CrashStateVerdict) -> Void
    ) throws {
        // The checkers build their states here: a checker that dies on a state leaves its files, removed with it.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stacklab-power-loss-states-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        var next = range.lowerBound
        while next < range.upperBound {
            let started = next
            let process = Process()
            process.executableURL = executable
            // A checker dying on a state is expected now and then: no backtrace to wait for.
            process.environment = ProcessInfo.processInfo.environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 }
            process.arguments = [
                "child", "power-loss-check", "--recording", recording.folder.path, "--total", String(states),
                "--seed", String(seed), "--first", String(next), "--count", String(range.upperBound - next),
                "--scratch", scratch.path,
            ]
            let output = Pipe()
            let errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            // Read standard error beside standard output, so a checker that writes much of it never blocks.
            let errorText = LockedValue(Data())
            let errorsRead = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                errorText.withLock { $0 = errors.fileHandleForReading.readDataToEndOfFile() }
                errorsRead.signal()
            }
            var begun: Int?
            var opened = false
            var pending = Data()
            let reader = output.fileHandleForReading
            while true {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    if line.hasPrefix("begin ") {
                        begun = Int(line.dropFirst(6))
                        opened = false
                    } else if line.hasPrefix("opened ") {
                        opened = true
                    } else if line.hasPrefix("verdict "),
                        let verdict = try? JSONDecoder().decode(
                            CrashStateVerdict.self, from: Data(line.dropFirst(8).utf8))
                    {
                        record(verdict)
                        next = verdict.state.number + 1
                        begun = nil
                    }
                }
            }
            process.waitUntilExit()
            errorsRead.wait()
            if process.terminationReason == .exit && process.terminationStatus == 0 {
                guard next > started || next >= range.upperBound else {
                    throw SaveLoopError("the power-loss checker ended without a verdict on state \(next)")
                }
                continue
            }
            guard let number = begun else {
                let message = String(decoding: errorText.withLock { $0 }, as: UTF8.self)
                throw SaveLoopError(
                    "the power-loss checker failed (status \(process.terminationStatus)): "
                        + message.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            let state = check.replay.state(number, of: states, seed: seed)
            var verdict = CrashStateVerdict(state: state, acknowledged: check.replay.acknowledged(before: state.point))
            let how =
                process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGALRM
                ? "hung (no verdict in \(Self.stateSeconds) s)"
                : process.terminationReason == .uncaughtSignal
                    ? "died of signal \(process.terminationStatus)" : "exited with status \(process.terminationStatus)"
            if opened {
                verdict.integrityProblems = ["the checker \(how) reading the store"]
            } else {
                verdict.openFailure = "the checker \(how) opening the store"
            }
            record(verdict)
            next = number + 1
        }
    }
}
