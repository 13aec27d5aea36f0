import ArgumentParser
import Foundation
import Lab

/// `stacklab report`: result CSVs as one self-contained HTML page.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write result CSVs as one self-contained HTML page: tables, charts, comparisons.",
        discussion: """
            Per scenario: each file's environment (from its .env.json sidecar), a summary table, the charts \
            scripts/plot.py draws (lines against the swept parameter with log axes where it uses them, the \
            watchdog deadline and killed launches for startup; bars when nothing numeric is swept; values on \
            hover), a bar chart per metric, the import phases where recorded, and — when several files hold \
            the same scenario — each compared against the first, with verdicts and p-values. The page loads \
            nothing from the network. Exit status: 0 written, 2 bad input.
            """)
    @Argument(help: "Result CSVs; of several with the same scenario, the first is the baseline.") var results: [String]
    @Option(help: "The HTML file to write.") var html: String
    @Option(help: "The comparisons' smallest relative change that counts, e.g. 10%.") var threshold = "10%"
    @Option(help: "The comparisons' significance level.") var alpha = 0.05

    func run() throws {
        let page: String
        do {
            var report = try HTMLReport(files: results)
            report.threshold = try ResultComparison.parseThreshold(threshold)
            report.alpha = alpha
            page = try report.render()
        } catch let error as CompareError {
            throw failure(verb: "report", "\(error)")
        }
        let url = URL(fileURLWithPath: html)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(page.utf8).write(to: url, options: .atomic)
        print("wrote \(html)")
    }
}
