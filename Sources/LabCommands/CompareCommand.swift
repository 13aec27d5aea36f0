import ArgumentParser
import Foundation
import LabWorkloads

/// `stacklab compare`: a result CSV against a baseline, per cell and metric, as ratios with confidence intervals;
/// two builds run round by round (`--paired`); or one run's cells against their reference cells (`--within`).
struct CompareCommand<Tool: LabTool>: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "compare",
            abstract:
                "Compare runs as ratios with 95% intervals: two CSVs, two builds round by round, or one run's cells.",
            discussion: """
                Per matrix cell and metric: the ratio current/base (Hodges-Lehmann) with its confidence interval \
                (--confidence, 95%), and a verdict against the band ±--threshold: faster or slower when the whole \
                interval lies beyond it (by the metric's declared direction: more throughput is faster), same when it \
                lies inside, unresolved otherwise (with the runs that would likely resolve it) or when the runs are \
                too few for an interval (four a side unpaired, six pairs paired, at 95%); a count or a column no \
                sidecar declares is changed instead of faster or slower (a warning names undeclared columns). A \
                metric no run of a cell has is left out.

                Three forms. `compare BASE.csv CURRENT.csv`: two runs, unpaired; exit 1 when a metric of a cell is \
                slower. `compare --paired BASE CURRENT [SCENARIO.yaml]`: with two CSVs whose k-th runs of a cell ran \
                side by side, paired; with two stacklab binaries and a scenario, it runs every cell --rounds times \
                with each build, the two taking turns run by run, one process each (--interleave cell; round: a \
                process per build and round, `run --repetitions 1`), alternating which goes first, writes the sides' \
                CSVs to --runs, compares pair by pair, and pools each --pool metric over every cell as the startup \
                gate does; exit 1 when a pooled metric is slower (the per-cell verdicts are for reading). \
                `compare --within COLUMN=VALUE RUN.csv`: each cell of one run against its twin with COLUMN=VALUE \
                (strategy=shared-coordinator), unpaired; exit 0.

                --format markdown prints the verdicts as a GitHub-flavoured table (slower first, the same only \
                counted) for a pull request or $GITHUB_STEP_SUMMARY; --format benchmark-json prints the current \
                medians as the JSON array github-action-benchmark reads, one direction per call: --polarity smaller \
                (tool customSmallerIsBetter: times, memory) or bigger (customBiggerIsBetter: throughput); counts are \
                left out. --out writes the per-cell comparison as CSV, with a sidecar declaring its columns. \
                Exit status, whatever the format: 0 nothing slower, 1 slower, 2 bad input.
                """)
    }
    @Argument(
        help: "BASE.csv CURRENT.csv; with --paired, or BASE_BINARY CURRENT_BINARY SCENARIO; with --within, RUN.csv.")
    var inputs: [String] = []
    @Flag(help: "The runs are paired: two CSVs whose k-th runs ran side by side, or two builds to run round by round.")
    var paired = false
    @Option(help: ArgumentHelp("Compare one run's cells with their twins with this value.", valueName: "COLUMN=VALUE"))
    var within: String?
    @Option(name: .customLong("metric"), help: "A metric column to compare (repeatable; default: every shared metric).")
    var metrics: [String] = []
    @Option(help: "The band: a change within ±threshold is the same, e.g. 10%.") var threshold = "10%"
    @Option(help: "The intervals' confidence, e.g. 95%.") var confidence = "95%"
    @Option(help: "Also write the per-cell comparison as CSV (and its .env.json sidecar) to this file.") var out:
        String?
    @Option(help: "What to print: text, markdown or benchmark-json.") var format = OutputFormat.text
    @Option(help: "With --format benchmark-json: smaller (times, memory) or bigger (throughput).")
    var polarity = BenchmarkJSON.Direction.smaller
    @Option(help: "With --paired: a metric pooled over every cell (repeatable; default cpu_ms and wall_ms).")
    var pool: [String] = []
    @Option(
        name: .customLong("pooled-out"),
        help: "With --paired: write the pooled rows as CSV to this file (builds: default RUNS/pooled.csv).")
    var pooledOut: String?
    @Option(help: "With --paired builds: rounds, each running every cell once per build.") var rounds = 10
    @Option(help: "With --paired builds: where the rounds and the sides' CSVs go.") var runs = "results/paired"
    @Option(help: "With --paired builds: pair the builds cell by cell (cell) or a whole round at a time (round).")
    var interleave = PairedBuildRunner.Interleaving.cell
    @Option(help: ArgumentHelp("With --paired builds: run only cells whose parameter k has value v.", valueName: "k=v"))
    var filter: [String] = []
    @Flag(help: "With --paired builds: run the scenario shrunk, as `run --quick`.") var quick = false
    @Option(
        name: .customLong("current-env"),
        help: ArgumentHelp(
            "With --paired builds: set an environment variable for the current build's runs only (a test hook).",
            valueName: "NAME=VALUE"))
    var currentEnvironment: [String] = []

    /// What `compare` prints.
    enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
        case text
        case markdown
        case benchmarkJSON = "benchmark-json"
    }

    /// Which form the arguments make.
    enum Form {
        case files(base: String, current: String)
        case builds(base: String, current: String, scenario: String)
        case within(Scenario.Reference, file: String)
    }

    var form: Form {
        get throws {
            if let within {
                guard !paired else { throw ValidationError("--within compares one run; it takes no --paired") }
                guard let reference = Scenario.Reference(within) else {
                    throw ValidationError("--within takes COLUMN=VALUE, such as strategy=shared-coordinator")
                }
                guard inputs.count == 1 else { throw ValidationError("--within takes one RUN.csv") }
                return .within(reference, file: inputs[0])
            }
            if paired, inputs.count == 3 { return .builds(base: inputs[0], current: inputs[1], scenario: inputs[2]) }
            guard inputs.count == 2 else {
                throw ValidationError(
                    paired
                        ? "--paired takes BASE.csv CURRENT.csv, or BASE_BINARY CURRENT_BINARY SCENARIO.yaml"
                        : "expected BASE.csv CURRENT.csv (or --paired, or --within COLUMN=VALUE RUN.csv)")
            }
            return .files(base: inputs[0], current: inputs[1])
        }
    }

    func validate() throws {
        let form = try form
        guard rounds >= 1 else { throw ValidationError("--rounds must be at least 1") }
        for item in filter + currentEnvironment where !item.contains("=") {
            throw ValidationError("--filter and --current-env take NAME=VALUE, got '\(item)'")
        }
        if case .builds = form {
        } else if !filter.isEmpty || quick || !currentEnvironment.isEmpty {
            throw ValidationError("--filter, --quick and --current-env go with --paired BASE_BINARY CURRENT_BINARY")
        }
        if pooledOut != nil, !paired { throw ValidationError("--pooled-out goes with --paired: only pairs are pooled") }
    }

    func run() throws {
        let metricList = metrics.flatMap { $0.split(separator: ",").map(String.init) }
        var (threshold, confidence) = (0.10, 0.95)
        do {
            threshold = try ResultComparison.parseThreshold(self.threshold)
            confidence = try ResultComparison.parseConfidence(self.confidence)
        } catch let error as CompareError {
            throw failure(verb: "compare", "\(error)")
        }
        let pooledFile = pooledOut.map { URL(fileURLWithPath: $0) }
        switch try form {
        case .within(let reference, let file):
            let table: ResultTable
            let within: WithinRunComparison
            do {
                table = try ResultTable(contentsOf: URL(fileURLWithPath: file))
                within = try WithinRunComparison(
                    table, reference: reference, metrics: metricList, threshold: threshold, confidence: confidence)
            } catch let error as CompareError {
                throw failure(verb: "compare", "\(error)")
            }
            if let problem = table.sidecarProblem { warn(verb: "compare", problem) }
            try report(
                within.rows(), cellColumns: within.cellColumns, threshold: threshold, confidence: confidence,
                paired: false, sidecar: ComparisonReport.sidecar(of: table, command: CommandLine.arguments), out: out)
        case .files(let base, let current):
            try compare(
                base: URL(fileURLWithPath: base), current: URL(fileURLWithPath: current), metrics: metricList,
                threshold: threshold, confidence: confidence, out: out,
                pooledOut: pooledFile)
        case .builds(let base, let current, let scenario):
            var runner = PairedBuildRunner(
                base: .init(binary: URL(fileURLWithPath: base)),
                current: .init(binary: URL(fileURLWithPath: current), environment: environment),
                scenario: URL(fileURLWithPath: scenario), rounds: rounds, outDirectory: URL(fileURLWithPath: runs))
            runner.runArguments = filter.flatMap { ["--filter", $0] } + (quick ? ["--quick"] : [])
            runner.interleave = interleave
            runner.progress = { line in FileHandle.standardError.write(Data("compare: \(line)\n".utf8)) }
            for binary in [base, current] where !FileManager.default.isExecutableFile(atPath: binary) {
                throw failure(verb: "compare", "\(binary): not an executable stacklab binary")
            }
            let sides: (base: URL, current: URL)
            do {
                sides = try runner.run()
            } catch let error as LabError {
                throw failure(verb: "compare", "\(error)")
            }
            let folder = URL(fileURLWithPath: runs)
            try compare(
                base: sides.base, current: sides.current, metrics: metricList, threshold: threshold,
                confidence: confidence, out: out ?? folder.appendingPathComponent("comparison.csv").path,
                pooledOut: pooledFile ?? folder.appendingPathComponent("pooled.csv"))
        }
    }

    /// The current build's extra environment, from `--current-env`.
    var environment: [String: String] {
        Dictionary(
            currentEnvironment.map { item in
                let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
                return (parts[0], parts.count > 1 ? parts[1] : "")
            }, uniquingKeysWith: { _, last in last })
    }

    /// Two CSVs compared, unpaired or (with --paired) pair by pair and pooled.
    private func compare(
        base: URL, current: URL, metrics: [String], threshold: Double, confidence: Double, out: String?,
        pooledOut: URL? = nil
    ) throws {
        let comparison: ResultComparison
        let rows: [ResultComparison.Row]
        var pooled: [ResultComparison.Row] = []
        do {
            comparison = try ResultComparison(
                baseline: ResultTable(contentsOf: base), current: ResultTable(contentsOf: current), metrics: metrics,
                threshold: threshold, confidence: confidence, pairing: paired ? .paired : .unpaired)
            rows = try comparison.rows()
            if paired {
                let shared = Set(comparison.baseline.metricColumns).intersection(comparison.current.metricColumns)
                let chosen = pool.isEmpty ? ["cpu_ms", "wall_ms"].filter(shared.contains) : pool
                if !chosen.isEmpty {
                    pooled = try PooledComparison(
                        baseline: comparison.baseline, current: comparison.current, metrics: chosen,
                        threshold: threshold, confidence: confidence
                    ).comparisonRows()
                }
            }
        } catch let error as CompareError {
            throw failure(verb: "compare", "\(error)")
        }
        for warning in comparison.warnings { warn(verb: "compare", warning) }
        try report(
            rows, cellColumns: comparison.cellColumns, threshold: threshold, confidence: confidence, paired: paired,
            sidecar: ComparisonReport.sidecar(comparison, command: CommandLine.arguments), out: out)
        if !pooled.isEmpty, format == .text {
            print("\npooled over every cell (the pairs of every cell together; this decides the exit status):")
            print(ComparisonReport.table(pooled, threshold: threshold, confidence: confidence, paired: true))
        }
        if let pooledOut, !pooled.isEmpty {
            let csv = ComparisonReport.csv(pooled, cellColumns: ["pooled"], threshold: threshold)
            try Data(csv.utf8).write(to: pooledOut, options: .atomic)
        }
        let slower = (paired ? pooled : rows).contains { $0.verdict == .slower }
        if slower { throw ExitStatus.regression.code }
    }

    /// Prints the rows in the chosen format and writes them, with their sidecar, to `out`.
    private func report(
        _ rows: [ResultComparison.Row], cellColumns: [String], threshold: Double, confidence: Double, paired: Bool,
        sidecar: EnvironmentRecord, out: String?
    ) throws {
        switch format {
        case .text:
            print(ComparisonReport.table(rows, threshold: threshold, confidence: confidence, paired: paired))
        case .markdown:
            print(
                ComparisonMarkdown.render(
                    rows, cellColumns: cellColumns, threshold: threshold, confidence: confidence, paired: paired),
                terminator: "")
        case .benchmarkJSON: print(try BenchmarkJSON.render(rows, direction: polarity), terminator: "")
        }
        if let out {
            let url = URL(fileURLWithPath: out)
            let csv = ComparisonReport.csv(rows, cellColumns: cellColumns, threshold: threshold)
            try Data(csv.utf8).write(to: url, options: .atomic)
            try sidecar.write(to: EnvironmentRecord.sidecar(of: url))
        }
    }
}

extension BenchmarkJSON.Direction: ExpressibleByArgument {}
