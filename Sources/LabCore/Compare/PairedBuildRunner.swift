import Foundation

/// Runs one scenario with two builds of the lab round by round, so that machine noise falls on both alike. The k-th
/// run of a cell on each side then ran side by side, and `compare --paired` compares them pair by pair
/// (`RatioComparison.Pairing`) and pooled over every cell (`PooledComparison`), as the startup gate does for
/// launches.
///
/// Cell by cell (``Interleaving/cell``, the default), each build runs the whole scenario in one process that waits
/// for its turn before each run (`run --paced`, ``RunPace``), and the two take turns run by run: a pair's runs are
/// seconds apart, and which goes first alternates from cell to cell and round to round. Round by round
/// (``Interleaving/round``, and for a build from before `--paced`), each round runs every cell once with one build
/// (`run SCENARIO --repetitions 1`), then once with the other, the first to go alternating from round to round.
/// Turns of a whole round let the machine's drift in: in an A/A trial of the concurrency scenario on this 2-core
/// machine, one side of a round ran up to 8% faster than the other in every cell alike, so a pooled interval of one
/// round was narrow around a shift that was not the builds'. A process per cell would pair as closely, but made every
/// run its process's first: a median 8% more CPU time per import.
///
/// Each build runs a copy of the scenario without `budget`, `max_repetitions` and `reference` (the rounds are the
/// runner's, and a build from before those keys still reads it), with a relative model path made absolute.
///
/// For example:
/// ```swift
/// var runner = PairedBuildRunner(
///     base: .init(binary: URL(fileURLWithPath: ".build-base/release/stacklab")),
///     current: .init(binary: URL(fileURLWithPath: ".build/release/stacklab")),
///     scenario: URL(fileURLWithPath: "Scenarios/concurrency.yaml"), rounds: 10,
///     outDirectory: URL(fileURLWithPath: "results/paired"))
/// let (base, current) = try runner.run()
/// ```
/// - Note: Not thread-safe; it runs the builds one after the other and blocks until they finish.
public struct PairedBuildRunner {
    /// How the two builds take turns.
    public enum Interleaving: String, Sendable, CaseIterable {
        /// Both builds at once, one process each, taking turns run by run.
        case cell
        /// One build's whole round, then the other's, a process per round.
        case round
    }

    /// One build: the executable and what its runs' environment adds (a test hook on one side).
    public struct Side: Sendable {
        public var binary: URL
        public var environment: [String: String]

        /// A build at `binary`, its runs' environment extended by `environment`.
        public init(binary: URL, environment: [String: String] = [:]) {
            self.binary = binary
            self.environment = environment
        }
    }

    public var base: Side
    public var current: Side
    /// The scenario file.
    public var scenario: URL
    /// Rounds: pairs per cell.
    public var rounds: Int
    /// What each `run` gets besides the scenario and the repetitions (`--filter k=v`, `--quick`).
    public var runArguments: [String] = []
    /// Where the rounds' folders and the sides' CSVs go.
    public var outDirectory: URL
    /// How the builds take turns.
    public var interleave = Interleaving.cell
    /// Hears a line per run started.
    public var progress: @Sendable (String) -> Void = { _ in }

    /// A runner of `rounds` rounds of `scenario`, writing to `outDirectory`.
    public init(base: Side, current: Side, scenario: URL, rounds: Int, outDirectory: URL) {
        self.base = base
        self.current = current
        self.scenario = scenario
        self.rounds = rounds
        self.outDirectory = outDirectory
    }

    /// Runs the rounds and writes `base.csv` and `current.csv` (each round's rows, `repetition` the round, with the
    /// first round's sidecar), returning where they are.
    /// - Throws: `LabError.invalidResults` when a build cannot run the scenario (its exit status 2, or no CSV),
    ///   naming the build and what it said.
    public func run() throws -> (base: URL, current: URL) {
        let fileManager = FileManager.default
        let runs = outDirectory.appendingPathComponent("runs")
        try? fileManager.removeItem(at: runs)
        try fileManager.createDirectory(at: runs, withIntermediateDirectories: true)
        let text: String
        do {
            text = try String(contentsOf: scenario, encoding: .utf8)
        } catch {
            throw LabError(
                .invalidScenario, "\(scenario.path): cannot read the scenario file: \(FileReadFailure(error))")
        }
        let copy = outDirectory.appendingPathComponent(scenario.lastPathComponent)
        try Data(Self.scenarioForRounds(text, directory: scenario.deletingLastPathComponent()).utf8).write(to: copy)
        let baseURL = outDirectory.appendingPathComponent("base.csv")
        let currentURL = outDirectory.appendingPathComponent("current.csv")
        if interleave == .cell {
            if Self.takesPacedRuns(base.binary), Self.takesPacedRuns(current.binary) {
                let sides = try runPaced(scenario: copy, runs: runs)
                try Self.adopt(sides.base, into: baseURL, rounds: rounds)
                try Self.adopt(sides.current, into: currentURL, rounds: rounds)
                return (baseURL, currentURL)
            }
            progress("a build has no `run --paced` (built before it): the builds take turns round by round")
        }
        var produced: [String: [URL]] = ["base": [], "current": []]
        for round in 1...max(rounds, 1) {
            let order =
                round % 2 == 1 ? [("base", base), ("current", current)] : [("current", current), ("base", base)]
            for (name, side) in order {
                progress("round \(round)/\(rounds): \(name) (\(side.binary.path))")
                let folder = runs.appendingPathComponent("\(name)-\(round)")
                produced[name]?.append(try launch(side, name: name, scenario: copy, into: folder))
            }
        }
        try Self.join(produced["base"] ?? [], into: baseURL)
        try Self.join(produced["current"] ?? [], into: currentURL)
        return (baseURL, currentURL)
    }

    /// Runs one round of one side; returns its CSV.
    private func launch(_ side: Side, name: String, scenario: URL, into folder: URL) throws -> URL {
        let process = Process()
        process.executableURL = side.binary
        process.arguments = ["run", scenario.path, "--repetitions", "1", "--out", folder.path] + runArguments
        process.environment = ProcessInfo.processInfo.environment.merging(side.environment) { _, own in own }
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        do {
            try process.run()
        } catch {
            throw LabError(.invalidResults, "\(name) build \(side.binary.path): cannot start it: \(error)")
        }
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return try Self.csv(of: process, name: name, side: side, folder: folder) {
            said.split(separator: "\n").last.map(String.init) ?? "exit status \(process.terminationStatus)"
        }
    }

    /// The CSV an ended run of a side wrote to `folder`.
    /// - Throws: `LabError.invalidResults` when the process failed, naming the build and `lastWords`, or wrote no CSV.
    static func csv(of process: Process, name: String, side: Side, folder: URL, lastWords: () -> String) throws -> URL {
        // 1 is a run that failed: its row has an error cell, which the comparison leaves out.
        guard process.terminationStatus <= 1 else {
            throw LabError(
                .invalidResults, "\(name) build \(side.binary.path) could not run the scenario: \(lastWords())")
        }
        let csvs = (try? FileManager.default.contentsOfDirectory(atPath: folder.path))?.filter { $0.hasSuffix(".csv") }
        guard let csv = csvs?.sorted().first else {
            throw LabError(.invalidResults, "\(name) build \(side.binary.path) wrote no CSV in \(folder.path)")
        }
        return folder.appendingPathComponent(csv)
    }

    /// The scenario as each build runs it: without the keys that set rounds and comparisons, and with a relative
    /// model path made absolute (the copy lives elsewhere).
    static func scenarioForRounds(_ text: String, directory: URL) -> String {
        let dropped = ["budget:", "max_repetitions:", "reference:"]
        return text.split(separator: "\n", omittingEmptySubsequences: false).compactMap { line -> String? in
            if dropped.contains(where: line.hasPrefix) { return nil }
            guard line.hasPrefix("model:") else { return String(line) }
            let value = line.dropFirst("model:".count).trimmingCharacters(in: .whitespaces)
            let unquoted = value.trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
            guard !unquoted.isEmpty, !unquoted.hasPrefix("builtin:"), !unquoted.hasPrefix("/") else {
                return String(line)
            }
            return "model: \"\(directory.appendingPathComponent(unquoted).standardizedFileURL.path)\""
        }.joined(separator: "\n")
    }

    /// One side's rounds as one CSV: the first round's header, every round's rows with `repetition` and `run_id`
    /// renumbered by round, and the first round's sidecar with the rounds as its repetitions.
    static func join(_ rounds: [URL], into url: URL) throws {
        var rows: [[String]] = []
        var header: [String] = []
        for (index, file) in rounds.enumerated() {
            let table = try ResultTable(contentsOf: file)
            if header.isEmpty { header = table.columns }
            guard table.columns == header else {
                throw LabError(.invalidResults, "\(file.path): its columns differ from the first round's")
            }
            let repetition = header.firstIndex(of: "repetition")
            let runID = header.firstIndex(of: "run_id")
            for var row in table.rows {
                if let repetition { row[repetition] = String(index + 1) }
                if let runID, let id = RunResult.parseRunID(row[runID]) {
                    row[runID] = RunResult.runID(cell: id.cell, repetition: index + 1)
                }
                rows.append(row)
            }
        }
        try Data((ResultCSV.render([header] + rows) + "\n").utf8).write(to: url, options: .atomic)
        if let first = rounds.first,
            var record = try? EnvironmentRecord.read(from: EnvironmentRecord.sidecar(of: first))
        {
            record.repetitions = rounds.count
            record.rounds = rounds.count
            try record.write(to: EnvironmentRecord.sidecar(of: url))
        }
    }
}
