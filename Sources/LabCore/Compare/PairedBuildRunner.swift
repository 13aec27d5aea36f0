import Foundation

/// Runs one scenario with two builds of the lab round by round, so that machine noise falls on both alike: each
/// round runs every cell once with each build (`run SCENARIO --repetitions 1`), and which goes first alternates so
/// neither always meets the warmer cache. The k-th run of a cell on each side then ran side by side, and `compare
/// --paired` compares them pair by pair (`RatioComparison.Pairing`) and pooled over every cell
/// (`PooledComparison`), as the startup gate does for launches.
///
/// Given its `cells`, a round runs them one at a time, each with both builds back to back (`--filter` for the cell):
/// the two runs of a pair are seconds apart, not a whole scenario apart. That matters here: on this 2-core machine
/// a whole side of a round ran 8% faster or slower than the other in an A/A trial of the concurrency scenario, every
/// cell alike, so per-round pairs carried the machine's drift from one minute to the next into every pair of the
/// round, and a pooled interval of one round was narrow around a shift that was not the builds'.
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
    /// The cells to pair one at a time, each as the `--filter k=v` arguments that select it alone
    /// (``cellFilters(_:)``); empty runs a whole round of cells per side in one `run`.
    public var cells: [[String]] = []
    /// Where the rounds' folders and the sides' CSVs go.
    public var outDirectory: URL
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
        var produced: [String: [(round: Int, url: URL)]] = ["base": [], "current": []]
        let units = cells.isEmpty ? [[]] : cells
        for round in 1...max(rounds, 1) {
            for (index, filters) in units.enumerated() {
                let order =
                    (round + index) % 2 == 1
                    ? [("base", base), ("current", current)] : [("current", current), ("base", base)]
                let unit = cells.isEmpty ? "" : ", cell \(index + 1)/\(cells.count) (\(filters.joined(separator: " ")))"
                for (name, side) in order {
                    progress("round \(round)/\(rounds)\(unit): \(name) (\(side.binary.path))")
                    let folder = runs.appendingPathComponent(
                        cells.isEmpty ? "\(name)-\(round)" : "\(name)-\(round)-cell\(index + 1)")
                    let csv = try launch(side, name: name, scenario: copy, filters: filters, into: folder)
                    produced[name]?.append((round, csv))
                }
            }
        }
        let baseURL = outDirectory.appendingPathComponent("base.csv")
        let currentURL = outDirectory.appendingPathComponent("current.csv")
        try Self.join(produced["base"] ?? [], into: baseURL)
        try Self.join(produced["current"] ?? [], into: currentURL)
        return (baseURL, currentURL)
    }

    /// Runs one round of one side, or of one cell (`filters`); returns its CSV.
    private func launch(_ side: Side, name: String, scenario: URL, filters: [String], into folder: URL) throws -> URL {
        let process = Process()
        process.executableURL = side.binary
        process.arguments =
            ["run", scenario.path, "--repetitions", "1", "--out", folder.path] + runArguments + filters
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
        // 1 is a run that failed: its row has an error cell, which the comparison leaves out.
        guard process.terminationStatus <= 1 else {
            let line = said.split(separator: "\n").last.map(String.init) ?? "exit status \(process.terminationStatus)"
            throw LabError(.invalidResults, "\(name) build \(side.binary.path) could not run the scenario: \(line)")
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

    /// The `--filter` arguments that select each of `cells` alone: its matrix values.
    public static func cellFilters(_ cells: [RunCell]) -> [[String]] {
        cells.map { cell in cell.matrixValues.flatMap { ["--filter", "\($0.name)=\($0.value)"] } }
    }

    /// One side's rounds as one CSV: the first round's header, every round's rows with `repetition` and `run_id`
    /// renumbered by round, and the first round's sidecar with the rounds as its repetitions.
    static func join(_ rounds: [URL], into url: URL) throws {
        try join(rounds.enumerated().map { (round: $0.offset + 1, url: $0.element) }, into: url)
    }

    /// One side's runs as one CSV, each run's rows numbered by its round: a round of every cell in one file, or
    /// of one cell a file. The columns are every file's (in order of first appearance; a row leaves the columns
    /// its file lacks empty), the sidecar the first file's with the rounds as its repetitions, every file's
    /// metrics declared, and the cells counted. A column new to a later file goes after the one its file has before it.
    static func join(_ runs: [(round: Int, url: URL)], into url: URL) throws {
        var tables: [(round: Int, table: ResultTable)] = []
        var header: [String] = []
        for (round, file) in runs {
            let table = try ResultTable(contentsOf: file)
            // A column new to the header goes after the column its file has before it, so trailing ones stay last.
            for (position, column) in table.columns.enumerated() where !header.contains(column) {
                let after = position == 0 ? nil : header.firstIndex(of: table.columns[position - 1])
                header.insert(column, at: after.map { $0 + 1 } ?? 0)
            }
            tables.append((round, table))
        }
        let repetition = header.firstIndex(of: "repetition")
        let runID = header.firstIndex(of: "run_id")
        var rows: [[String]] = []
        var cellsSeen = Set<String>()
        for (round, table) in tables {
            let positions = header.map { table.columns.firstIndex(of: $0) }
            for original in table.rows {
                var row = positions.map { $0.map { original[$0] } ?? "" }
                if let repetition { row[repetition] = String(round) }
                if let runID, let cell = row[runID].split(separator: "r").first {
                    row[runID] = "\(cell)r\(round)"
                    cellsSeen.insert(String(cell))
                }
                rows.append(row)
            }
        }
        try Data((ResultCSV.render([header] + rows) + "\n").utf8).write(to: url, options: .atomic)
        let records = runs.compactMap { try? EnvironmentRecord.read(from: EnvironmentRecord.sidecar(of: $0.url)) }
        guard var record = records.first else { return }
        let rounds = Set(runs.map(\.round)).count
        record.repetitions = rounds
        record.rounds = rounds
        if runs.count > rounds, !cellsSeen.isEmpty { record.matrixCells = cellsSeen.count }
        record.finished = records.map(\.finished).max() ?? record.finished
        var metrics = record.metrics ?? []
        for other in records.dropFirst() {
            metrics += (other.metrics ?? []).filter { metric in !metrics.contains { $0.name == metric.name } }
        }
        record.metrics = record.metrics == nil && metrics.isEmpty ? nil : metrics
        try record.write(to: EnvironmentRecord.sidecar(of: url))
    }
}
