import ArgumentParser
import Foundation
import LabWorkloads

/// `stacklab compare`: a result CSV against a baseline, per cell and metric.
struct CompareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Compare a result CSV against a baseline; exit 1 on a regression.",
        discussion: """
            Per matrix cell and metric: unchanged if the medians differ by less than the threshold; \
            otherwise improved or regressed if a two-sided Mann-Whitney U test on the repetitions gives \
            p < alpha, inconclusive if not. Each metric's declaration in the files' .env.json sidecars says \
            whether lower or higher is better (times and memory lower, throughput higher); counts have no \
            direction and are not judged, nor is a column neither sidecar declares (a warning names them). \
            --format markdown prints the verdicts as a GitHub-flavoured table (regressions first, unchanged \
            metrics only counted) for a pull request or $GITHUB_STEP_SUMMARY; --format benchmark-json prints \
            the current medians as the JSON array github-action-benchmark reads, one direction per call: \
            --polarity smaller (tool customSmallerIsBetter: times, memory) or bigger (customBiggerIsBetter: \
            throughput); counts are left out. \
            Exit status, whatever the format: 0 no regression, 1 a regression, 2 bad input.
            """)
    @Argument(help: "The baseline CSV.") var baseline: String
    @Argument(help: "The current CSV.") var current: String
    @Option(name: .customLong("metric"), help: "A metric column to compare (repeatable; default: every shared metric).")
    var metrics: [String] = []
    @Option(help: "The smallest relative change of the medians that counts, e.g. 10%.") var threshold = "10%"
    @Option(help: "The significance level of the test.") var alpha = 0.05
    @Option(help: "Also write the comparison as CSV to this file.") var out: String?
    @Option(help: "What to print: text, markdown or benchmark-json.") var format = OutputFormat.text
    @Option(help: "With --format benchmark-json: smaller (times, memory) or bigger (throughput).")
    var polarity = BenchmarkJSON.Direction.smaller

    /// What `compare` prints.
    enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
        case text
        case markdown
        case benchmarkJSON = "benchmark-json"
    }

    func run() throws {
        let rows: [ResultComparison.Row]
        let comparison: ResultComparison
        do {
            guard alpha > 0, alpha < 1 else { throw ValidationError("--alpha must be between 0 and 1") }
            comparison = try ResultComparison(
                baseline: ResultTable(contentsOf: URL(fileURLWithPath: baseline)),
                current: ResultTable(contentsOf: URL(fileURLWithPath: current)),
                metrics: metrics.flatMap { $0.split(separator: ",").map(String.init) },
                threshold: ResultComparison.parseThreshold(threshold), alpha: alpha)
            rows = try comparison.rows()
        } catch let error as CompareError {
            throw failure(verb: "compare", "\(error)")
        }
        for warning in comparison.warnings { warn(verb: "compare", warning) }
        switch format {
        case .text: print(ComparisonReport.table(rows, threshold: comparison.threshold, alpha: comparison.alpha))
        case .markdown:
            print(
                ComparisonMarkdown.render(
                    rows, cellColumns: comparison.cellColumns, threshold: comparison.threshold,
                    alpha: comparison.alpha),
                terminator: "")
        case .benchmarkJSON: print(try BenchmarkJSON.render(rows, direction: polarity), terminator: "")
        }
        if let out {
            let csv = ComparisonReport.csv(rows, cellColumns: comparison.cellColumns, threshold: comparison.threshold)
            try Data(csv.utf8).write(to: URL(fileURLWithPath: out), options: .atomic)
        }
        if rows.contains(where: { $0.verdict == .regressed }) { throw ExitStatus.regression.code }
    }
}

extension BenchmarkJSON.Direction: ExpressibleByArgument {}
