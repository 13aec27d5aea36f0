import ArgumentParser
import Foundation
import LabWorkloads

/// `stacklab gate`: the startup gate's verdict on two CSVs of paired runs (`scripts/startup-gate.sh`).
struct GateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gate",
        abstract: "Decide whether CURRENT is slower than BASE over paired runs: pooled over every cell, and per cell.",
        discussion: """
            The k-th run of a cell in BASE and in CURRENT ran side by side (scripts/startup-gate.sh alternates \
            them), so each pair gives one ratio current/base. Pooled over every cell, a --metric regressed when \
            the median ratio is --threshold or more larger and a one-sided Wilcoxon signed-rank test (SciPy's \
            wilcoxon with alternative="greater" and its defaults) gives p < --alpha. Beside it each row shows the \
            pooled change's 95% Hodges-Lehmann interval and what that interval says against the threshold \
            (faster, slower, same or unresolved), as `stacklab compare --paired` decides. A --per-cell metric \
            regressed in a cell when `stacklab compare --paired` calls it slower (10%, 95% intervals of the \
            paired runs: a launch the watchdog kills that it did not kill before). Prints the pooled table and the \
            per-cell tally; --out writes the pooled rows as CSV, --markdown the whole verdict for a pull request. \
            Exit status: 0 no regression, 1 a regression, 2 bad input.
            """)
    @Argument(help: "The base side's CSV.") var baseline: String
    @Argument(help: "The current side's CSV.") var current: String
    @Option(name: .customLong("metric"), help: "A metric judged pooled over every cell (repeatable).")
    var metrics: [String] = ["cpu_ms", "time_to_first_frame_ms", "time_to_first_screen_ms"]
    @Option(help: "The smallest pooled change that counts, e.g. 5%.") var threshold = "5%"
    @Option(help: "The pooled test's significance level.") var alpha = 0.01
    @Option(name: .customLong("per-cell"), help: "A metric judged cell by cell, as compare does (repeatable).")
    var perCell: [String] = ["killed_by_watchdog"]
    @Option(help: "Write the pooled verdicts as CSV to this file.") var out: String?
    @Option(help: "Write the whole verdict as Markdown to this file.") var markdown: String?

    func run() throws {
        let pooled: [PooledComparison.Row]
        let gate: PooledComparison
        let cells: ResultComparison?
        let cellRows: [ResultComparison.Row]
        do {
            guard alpha > 0, alpha < 1 else { throw ValidationError("--alpha must be between 0 and 1") }
            let base = try ResultTable(contentsOf: URL(fileURLWithPath: baseline))
            let head = try ResultTable(contentsOf: URL(fileURLWithPath: current))
            for table in [base, head] where table.rows.isEmpty {
                throw CompareError.malformed(table.source, line: 2, reason: "no rows")
            }
            gate = try PooledComparison(
                baseline: base, current: head, metrics: metrics.flatMap { $0.split(separator: ",").map(String.init) },
                threshold: ResultComparison.parseThreshold(threshold), alpha: alpha)
            pooled = try gate.rows()
            let perCellMetrics = perCell.flatMap { $0.split(separator: ",").map(String.init) }
            cells =
                perCellMetrics.isEmpty
                ? nil : try ResultComparison(baseline: base, current: head, metrics: perCellMetrics, pairing: .paired)
            cellRows = try cells?.rows() ?? []
        } catch let error as CompareError {
            throw failure(verb: "gate", "\(error)")
        }
        for warning in cells?.warnings ?? [] { warn(verb: "gate", warning) }
        print("pooled over every cell:")
        print(GateReport.table(pooled, threshold: gate.threshold, alpha: gate.alpha))
        if let cells {
            let tally = ComparisonVerdict.allCases.map { verdict in
                "\(cellRows.filter { $0.verdict == verdict }.count) \(verdict.rawValue)"
            }
            print("\nper cell (\(cells.metrics.joined(separator: ", "))): \(tally.joined(separator: ", "))")
        }
        let regressed = pooled.contains(where: \.regressed) || cellRows.contains { $0.verdict == .slower }
        print("\nverdict: \(regressed ? "REGRESSION" : "no regression")")
        if let out {
            try Data(GateReport.csv(pooled, threshold: gate.threshold, alpha: gate.alpha).utf8).write(
                to: URL(fileURLWithPath: out), options: .atomic)
        }
        if let markdown {
            let text = GateReport.markdown(
                pooled, threshold: gate.threshold, alpha: gate.alpha, cellRows: cellRows,
                cellColumns: cells?.cellColumns ?? [], cellThreshold: cells?.threshold ?? 0.10)
            try Data(text.utf8).write(to: URL(fileURLWithPath: markdown), options: .atomic)
        }
        if regressed { throw ExitStatus.regression.code }
    }
}
