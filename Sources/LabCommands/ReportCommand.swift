import ArgumentParser
import Foundation
import LabWorkloads

/// `stacklab report`: result CSVs as one self-contained HTML page, and their charts as standalone SVG files.
struct ReportCommand<Tool: LabTool>: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "report",
            abstract:
                "Write result CSVs as one self-contained HTML page (--html) and their charts as SVG files (--charts).",
            discussion: """
                Per scenario: when several files hold it, each compared against the first (verdicts, ratios with their \
                95% intervals and the change per cell drawn); the charts its workload declares (lines against the swept parameter \
                with log axes where declared, the watchdog deadline and killed launches for startup, stacked \
                phases for import; bars when nothing numeric is swept; values on hover); each file's environment \
                and summary table from its .env.json sidecar; a bar chart per metric. A comparison CSV (compare \
                --out) is drawn as the change per cell. The page loads nothing from the network. --charts DIR \
                writes the same charts as one SVG file per scenario, DIR/NAME.svg after its first CSV (the README's \
                charts). Exit status: 0 written, 2 bad input.
                """)
    }
    @Argument(help: "Result CSVs; of several with the same scenario, the first is the baseline.") var results: [String]
    @Option(help: "The HTML file to write.") var html: String?
    @Option(help: "A folder to write each scenario's charts to as NAME.svg.") var charts: String?
    @Option(help: "The comparisons' band: a change within it is the same, e.g. 10%.") var threshold = "10%"
    @Option(help: "The confidence of the comparisons' intervals, e.g. 95%.") var confidence = "95%"
    @Option(
        name: .customLong("metric"),
        help: "A metric a comparison's chart shows (repeatable; default: the workload's headline metrics).")
    var metrics: [String] = []

    func validate() throws {
        guard html != nil || charts != nil else { throw ValidationError("give --html FILE, --charts DIR or both") }
    }

    func run() throws {
        let page: String?
        let figures: [(name: String, svg: String)]
        do {
            var report = try HTMLReport(files: results, workloads: Tool.workloads)
            report.threshold = try ResultComparison.parseThreshold(threshold)
            report.confidence = try ResultComparison.parseConfidence(confidence)
            report.comparedMetrics = metrics.flatMap { $0.split(separator: ",").map(String.init) }
            page = try html.map { _ in try report.render() }
            figures = try charts.map { _ in try report.figures() } ?? []
        } catch let error as CompareError {
            throw failure(verb: "report", "\(error)")
        }
        if let html, let page {
            let url = URL(fileURLWithPath: html)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(page.utf8).write(to: url, options: .atomic)
            print("wrote \(html)")
        }
        if let charts {
            let folder = URL(fileURLWithPath: charts, isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for figure in figures {
                let url = folder.appendingPathComponent("\(figure.name).svg")
                try Data(figure.svg.utf8).write(to: url, options: .atomic)
                print("wrote \(url.path)")
            }
        }
    }
}
