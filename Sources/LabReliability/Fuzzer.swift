import Foundation
import LabWorkloads
import Synchronization

/// A seeded mutation fuzzer: starts from a corpus, mutates inputs (bit flips, byte and range edits,
/// dictionary words, splices), runs each through a target until a deadline, and stops at the first crash
/// (the process dies: the input is in `lastInputFile`), hang (an input past `hangSeconds`: written out, then
/// the process exits) or unexpected error.
public struct Fuzzer: Sendable {
    /// What a session did.
    public struct Report: Sendable {
        public var executions = 0
        public var accepted = 0
        public var rejected = 0
        /// Inputs that failed with an error of a kind the target does not promise, with the input.
        public var unexpected: [(input: Data, message: String)] = []
        public var seconds = 0.0

        /// What `stacklab fuzz` prints: the counts, then up to five unexpected errors with their inputs.
        public func summary(target: String, corpusCount: Int, seed: UInt64) -> String {
            var lines = [
                "fuzz \(target): \(executions) inputs in \(String(format: "%.0f", seconds)) s "
                    + "(\(corpusCount) from the corpus, seed \(seed)): \(accepted) accepted, \(rejected) rejected "
                    + "with an error, \(unexpected.count) unexpected errors; no crash, no hang"
            ]
            for (input, message) in unexpected.prefix(5) {
                lines.append(
                    "  unexpected: \(message) for input \(String(decoding: input, as: UTF8.self).debugDescription)")
            }
            return lines.joined(separator: "\n")
        }
    }

    public let target: FuzzTarget
    public let seed: UInt64
    /// Each input is written here before it runs, so a crash leaves it behind.
    public let lastInputFile: URL?
    public let hangSeconds: Double

    /// A fuzzer of `target`, deterministic for a seed (bar timing), recording inputs in `lastInputFile`.
    public init(target: FuzzTarget, seed: UInt64, lastInputFile: URL? = nil, hangSeconds: Double = 5) {
        self.target = target
        self.seed = seed
        self.lastInputFile = lastInputFile
        self.hangSeconds = hangSeconds
    }

    /// Reads every file of a corpus folder; its subfolders are skipped (`--corpus Scenarios` holds `models/`).
    public static func corpus(at folder: URL) throws -> [Data] {
        try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: [.isDirectoryKey])
            .filter { try $0.resourceValues(forKeys: [.isDirectoryKey]).isDirectory != true }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
            .map { try Data(contentsOf: $0) }
    }

    /// Runs every corpus input once, then mutants until `seconds` have passed (or `maxExecutions`).
    public func run(corpus: [Data], seconds: Double, maxExecutions: Int = .max) throws -> Report {
        var report = Report()
        var pool = corpus.isEmpty ? [Data()] : corpus
        var random = SplitMix64(seed: seed)
        let recorder = try lastInputFile.map { try InputRecorder(url: $0) }
        let watchdog = Watchdog(limit: hangSeconds, recorder: recorder, target: target.name)
        let start = Date()
        var index = 0
        while report.executions < maxExecutions {
            let input: Data
            if index < corpus.count {
                input = corpus[index]
                index += 1
            } else {
                if Date().timeIntervalSince(start) >= seconds { break }
                input = mutate(random.pick(pool), pool: pool, using: &random)
            }
            recorder?.record(input)
            watchdog.begin()
            let outcome = target.execute(input)
            watchdog.end()
            report.executions += 1
            switch outcome {
            case .accepted:
                report.accepted += 1
                // Valid inputs are the best parents: their mutants reach deeper than noise does.
                if pool.count < 5_000, random.chance(0.05) { pool.append(input) }
            case .rejected:
                report.rejected += 1
            case .unexpectedError(let message):
                report.unexpected.append((input, message))
            }
        }
        report.seconds = Date().timeIntervalSince(start)
        return report
    }

    func mutate(_ parent: Data, pool: [Data], using random: inout SplitMix64) -> Data {
        var bytes = [UInt8](parent)
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0...bytes.count, using: &random)
            switch Int.random(in: 0..<8, using: &random) {
            case 0 where !bytes.isEmpty:
                let at = min(position, bytes.count - 1)
                bytes[at] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &random)
            case 1 where !bytes.isEmpty:
                bytes[min(position, bytes.count - 1)] = UInt8.random(in: 0...255, using: &random)
            case 2 where !bytes.isEmpty:
                let end = min(bytes.count, position + Int.random(in: 1...8, using: &random))
                bytes.removeSubrange(min(position, end)..<end)
            case 3 where !bytes.isEmpty:
                let start = min(position, bytes.count - 1)
                let end = min(bytes.count, start + Int.random(in: 1...16, using: &random))
                bytes.insert(contentsOf: bytes[start..<end], at: Int.random(in: 0...bytes.count, using: &random))
            case 4:
                let other = [UInt8](random.pick(pool))
                if !other.isEmpty {
                    let from = Int.random(in: 0..<other.count, using: &random)
                    bytes.insert(
                        contentsOf: other[from..<min(other.count, from + Int.random(in: 1...32, using: &random))],
                        at: position)
                }
            case 5 where !bytes.isEmpty:
                bytes.removeSubrange(min(position, bytes.count)...)
            default:
                bytes.insert(contentsOf: Array(random.pick(target.dictionary).utf8), at: position)
            }
        }
        // Bounded inputs keep each run short; length is not where these readers break.
        return Data(bytes.prefix(target.maxInputSize))
    }
}

/// Writes each input over the same file before it runs, so a crashing input survives the crash.
final class InputRecorder: Sendable {
    private let descriptor: Int32
    let url: URL

    init(url: URL) throws {
        self.url = url
        descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: url.path])
        }
    }

    func record(_ input: Data) {
        _ = ftruncate(descriptor, 0)
        _ = input.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, input.count, 0) }
    }

    deinit { close(descriptor) }
}

/// Notices an input that runs too long: it reports where the input is and ends the process.
final class Watchdog: Sendable {
    /// When the running input began, in microseconds on `clock` plus one (0: no input running).
    private let started = Atomic<Int64>(0)
    private let limit: Double
    private let clock: any LabClock = SystemClock()

    init(limit: Double, recorder: InputRecorder?, target: String) {
        self.limit = limit
        let thread = Thread { [weak self] in
            while let self {
                Thread.sleep(forTimeInterval: min(1, limit / 4))
                let begin = self.started.load(ordering: .relaxed)
                guard begin > 0 else { continue }
                if Double(self.microseconds() - begin) / 1e6 > limit {
                    let place = recorder.map { " (the input is in \($0.url.path))" } ?? ""
                    FileHandle.standardError.write(
                        Data("fuzz \(target): an input ran over \(limit) s: a hang\(place)\n".utf8))
                    exit(ExitStatus.hang.rawValue)
                }
            }
        }
        thread.start()
    }

    private func microseconds() -> Int64 { Int64(clock.nowMilliseconds() * 1_000) + 1 }

    func begin() { started.store(microseconds(), ordering: .relaxed) }
    func end() { started.store(0, ordering: .relaxed) }
}
