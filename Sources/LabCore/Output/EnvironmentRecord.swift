import Foundation

/// The environment a result file was made in, written beside it as `NAME.env.json`, with the declarations of
/// its metric columns and concurrency strategies, so the CSV can be judged and charted without the workload's code.
public struct EnvironmentRecord: Codable, Sendable {
    public var scenario: String
    public var scenarioFile: String?
    public var workload: String
    public var model: String
    public var quick: Bool
    public var repetitions: Int
    public var warmup: Int
    /// The fixed parameters the runs used (after `--quick`).
    public var parameters: [String: String]
    public var command: [String]
    public var gitCommit: String
    public var host: String
    public var cores: Int
    public var memoryBytes: UInt64
    public var operatingSystem: String
    public var swift: String
    /// The engines the build links, in the order the workloads' module lists its stores; read from the `sqlite` and
    /// `lmdb` keys of a sidecar written before engines were listed.
    public var engines: [EngineVersion] {
        get { listedEngines ?? [EngineVersion("SQLite", legacySQLite ?? ""), EngineVersion("LMDB", legacyLMDB ?? "")] }
        set {
            listedEngines = newValue
            (legacySQLite, legacyLMDB) = (nil, nil)
        }
    }
    private var listedEngines: [EngineVersion]?
    private var legacySQLite: String?
    private var legacyLMDB: String?
    public var started: Date
    public var finished: Date
    /// Whether each run's peak memory was reset before it (Linux `clear_refs`); otherwise it is the process's.
    public var peakMemoryPerRun: Bool
    /// `K/N` when the run was one shard of the matrix (`run --shard`); nil when it ran every cell.
    public var shard: String?
    /// How many cells the whole matrix has (after the filters), so `merge` can tell a shard is missing.
    public var matrixCells: Int?
    /// The declarations of the CSV's metric columns, in column order; nil in a sidecar written before the lab
    /// recorded them (`stacklab declare` adds them), whose columns `compare` judges neutral.
    public var metrics: [Metric]?
    /// The concurrency strategies the workload declares (the `strategy` column's values); nil when unrecorded.
    /// Read from the `designs` key of a sidecar written before the lab called them strategies.
    public var strategies: [ConcurrencyStrategy]? {
        get { declaredStrategies ?? legacyDesigns }
        set {
            declaredStrategies = newValue
            legacyDesigns = nil
        }
    }
    private var declaredStrategies: [ConcurrencyStrategy]?
    private var legacyDesigns: [ConcurrencyStrategy]?
    /// The workload's headline metrics, by name: what a summary or a chart shows first.
    public var headlineMetrics: [String]?
    /// The run's time budget in seconds, when it had one (`repetitions` is then the fewest rounds a cell got).
    public var budget: Double?
    /// With a budget, the most rounds a cell could get.
    public var maxRepetitions: Int?
    /// The most rounds a cell got; nil in a sidecar written before the lab recorded it.
    public var rounds: Int?
    /// The cells the others were compared with (`strategy=shared-coordinator`), when the scenario names them.
    public var reference: String?

    enum CodingKeys: String, CodingKey {
        case scenario, workload, model, quick, repetitions, warmup, parameters, command, host, cores, swift
        case listedEngines = "engines"
        case legacySQLite = "sqlite"
        case legacyLMDB = "lmdb"
        case started, finished
        case scenarioFile = "scenario_file"
        case gitCommit = "git_commit"
        case memoryBytes = "memory_bytes"
        case operatingSystem = "os"
        case peakMemoryPerRun = "peak_memory_per_run"
        case shard
        case matrixCells = "matrix_cells"
        case metrics
        case declaredStrategies = "strategies"
        case legacyDesigns = "designs"
        case headlineMetrics = "headline_metrics"
        case budget = "budget_s"
        case maxRepetitions = "max_repetitions"
        case rounds, reference
    }

    /// Records the environment of `scenario`'s runs.
    /// `engines` are the linked engines' versions, as the workloads' module names them: the core links none.
    /// `commit` is the checkout as read when the run started (read now when nil).
    static func current(
        scenario: Scenario, quick: Bool, started: Date, peakMemoryPerRun: Bool, engines: [EngineVersion],
        shard: Shard? = nil, matrixCells: Int? = nil, gitCommit commit: String? = nil, rounds: Int? = nil
    ) -> EnvironmentRecord {
        let info = ProcessInfo.processInfo
        return EnvironmentRecord(
            scenario: scenario.name, scenarioFile: scenario.file?.path, workload: scenario.workload.name,
            model: scenario.model.description, quick: quick, repetitions: scenario.repetitions, warmup: scenario.warmup,
            parameters: scenario.parameters.mapValues(\.description), command: CommandLine.arguments,
            gitCommit: commit ?? gitCommit(), host: info.hostName, cores: info.activeProcessorCount,
            memoryBytes: info.physicalMemory,
            operatingSystem: info.operatingSystemVersionString, swift: swiftVersion, listedEngines: engines,
            started: started, finished: Date(), peakMemoryPerRun: peakMemoryPerRun,
            shard: shard?.description, matrixCells: matrixCells,
            metrics: ResultCSV.metricDeclarations(for: scenario), declaredStrategies: scenario.workload.strategies,
            headlineMetrics: scenario.workload.headlineMetrics.map(\.name), budget: scenario.budget,
            maxRepetitions: scenario.budget == nil ? nil : scenario.mostRepetitions, rounds: rounds,
            reference: scenario.reference?.description)
    }

    /// A record for a CSV that has lost its sidecar, from what the CSV itself says (scenario, workload,
    /// repetitions, first and last timestamp); everything about the machine and the build is `unknown`.
    public static func reconstructed(for table: ResultTable, workload: String, command: [String]) -> EnvironmentRecord {
        let first = table.rows.first
        let formatter = ISO8601DateFormatter()
        let times = table.rows.compactMap { table.value("timestamp", in: $0).flatMap(formatter.date(from:)) }
        let repetitions = table.rows.compactMap { table.value("repetition", in: $0).flatMap(Int.init) }.max() ?? 1
        return EnvironmentRecord(
            scenario: first.flatMap { table.value("scenario", in: $0) } ?? "unknown", scenarioFile: nil,
            workload: workload, model: "unknown", quick: false, repetitions: repetitions, warmup: 0, parameters: [:],
            command: command, gitCommit: "unknown", host: "unknown", cores: 0, memoryBytes: 0,
            operatingSystem: "unknown", swift: "unknown", listedEngines: [],
            started: times.min() ?? Date(timeIntervalSince1970: 0),
            finished: times.max() ?? Date(timeIntervalSince1970: 0),
            peakMemoryPerRun: false, shard: nil, matrixCells: nil)
    }

    /// The record with the declarations `workload` gives for the metric columns of a CSV whose header is
    /// `columns` (a file written before the lab recorded them). A column the workload does not declare takes
    /// the declaration of the same name from `others` (a legacy CSV has every workload's columns), else stays
    /// undeclared.
    /// - Returns: the record, and the metric columns left undeclared.
    public func declaring(columns: [String], workload: any Workload, others: [any Workload] = [])
        -> (record: EnvironmentRecord, undeclared: [String])
    {
        let own = workload.metrics + Metric.common
        let known = Dictionary(
            (own + others.flatMap(\.metrics)).map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var declared: [Metric] = []
        var undeclared: [String] = []
        for column in columns where !declared.contains(where: { $0.name == column }) {
            if let metric = known[column] { declared.append(metric) } else { undeclared.append(column) }
        }
        var record = self
        record.metrics = declared
        record.strategies = workload.strategies
        record.headlineMetrics = workload.headlineMetrics.map(\.name)
        return (record, undeclared)
    }

    /// The compiler that built this binary.
    static var swiftVersion: String {
        #if compiler(>=6.4)
            return "6.4 or later"
        #elseif compiler(>=6.3)
            return "6.3"
        #elseif compiler(>=6.2)
            return "6.2"
        #elseif compiler(>=6.1)
            return "6.1"
        #else
            return "6.0"
        #endif
    }

    /// `git rev-parse HEAD` of the working directory, `+dirty` when it has changes; `unknown` outside a checkout.
    static func gitCommit() -> String {
        func git(_ arguments: [String]) -> String? {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["git"] + arguments
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            guard (try? process.run()) != nil else { return nil }
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { return nil }
            return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard let commit = git(["rev-parse", "HEAD"]) else { return "unknown" }
        let dirty = git(["status", "--porcelain", "--untracked-files=no"]).map { !$0.isEmpty } ?? false
        return dirty ? commit + "+dirty" : commit
    }

    /// The sidecar of the CSV at `csv`: `NAME.env.json` beside `NAME.csv`.
    public static func sidecar(of csv: URL) -> URL {
        csv.deletingPathExtension().appendingPathExtension("env.json")
    }

    /// Reads a record the lab wrote.
    /// - Throws: what reading the file or decoding its JSON throws.
    public static func read(from url: URL) throws -> EnvironmentRecord {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(EnvironmentRecord.self, from: Data(contentsOf: url))
    }

    /// Writes the record as pretty JSON.
    public func write(to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try encoder.encode(self).write(to: url, options: .atomic)
    }
}
