import Foundation

extension PairedBuildRunner {
    /// Whether a build takes `run --paced`: its hidden help names the flag (a build from before it does not).
    static func takesPacedRuns(_ binary: URL) -> Bool {
        let process = Process()
        process.executableURL = binary
        process.arguments = ["run", "--help-hidden"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        let help = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return process.terminationStatus == 0 && help.contains("--paced")
    }

    /// Runs the scenario with both builds at once, each in one `run --paced` process, and lets them take turns run
    /// by run: each run's two sides back to back, the first to go alternating from cell to cell and round to round.
    /// - Returns: each side's CSV.
    /// - Throws: `LabError.invalidResults` when a build stops early, the two disagree on the next run, or a build
    ///   cannot run the scenario, naming the build and the last thing it said.
    func runPaced(scenario copy: URL, runs: URL) throws -> (base: URL, current: URL) {
        let arguments = ["--repetitions", String(rounds), "--paced"] + runArguments
        let baseWorker = try PacedWorker(
            name: "base", side: base, scenario: copy, arguments: arguments, folder: runs.appendingPathComponent("base"))
        let currentWorker: PacedWorker
        do {
            currentWorker = try PacedWorker(
                name: "current", side: current, scenario: copy, arguments: arguments,
                folder: runs.appendingPathComponent("current"))
        } catch {
            baseWorker.stop()
            throw error
        }
        let workers = [baseWorker, currentWorker]
        do {
            while true {
                let ready = workers.map { $0.nextLine() }
                if ready.allSatisfy({ $0 == nil }) { break }
                guard let id = ready[0].flatMap(Self.readyID), ready[1].flatMap(Self.readyID) == id else {
                    throw LabError(
                        .invalidResults,
                        "the builds disagree on the next run (base: \(ready[0] ?? "ended"), current: "
                            + "\(ready[1] ?? "ended")); \(workers.map { $0.lastWords() }.joined(separator: "; "))")
                }
                guard let (cell, repetition) = RunResult.parseRunID(id) else {
                    throw LabError(.invalidResults, "both builds announced '\(id)', which is not a run id (cNrM)")
                }
                let order = (cell + repetition) % 2 == 1 ? workers : workers.reversed()
                let round = repetition == 0 ? "warm-up" : "round \(repetition)/\(rounds)"
                for worker in order {
                    progress("\(round), cell \(cell): \(worker.name) (\(worker.side.binary.path))")
                    worker.go()
                    guard worker.nextLine() == "done \(id)" else {
                        throw LabError(
                            .invalidResults,
                            "\(worker.name) build \(worker.side.binary.path) stopped during run \(id): "
                                + worker.lastWords())
                    }
                }
            }
            return (try baseWorker.finish(), try currentWorker.finish())
        } catch {
            for worker in workers { worker.stop() }
            throw error
        }
    }

    /// The run id of a `ready` line (`ready c3r2` → `c3r2`).
    static func readyID(_ line: String) -> String? {
        line.hasPrefix("ready ") ? String(line.dropFirst("ready ".count)) : nil
    }

    /// A side's one CSV as that side's file: copied with its sidecar, which says it ran `rounds` rounds.
    static func adopt(_ csv: URL, into url: URL, rounds: Int) throws {
        try? FileManager.default.removeItem(at: url)
        try FileManager.default.copyItem(at: csv, to: url)
        guard var record = try? EnvironmentRecord.read(from: EnvironmentRecord.sidecar(of: csv)) else { return }
        record.repetitions = rounds
        record.rounds = rounds
        try record.write(to: EnvironmentRecord.sidecar(of: url))
    }
}
