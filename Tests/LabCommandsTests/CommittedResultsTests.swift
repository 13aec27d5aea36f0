import Foundation
import LabWorkloads
import TestSupport
import Testing

/// The results the repository ships: every committed baseline compares with `stacklab compare` and renders with
/// `stacklab report`, every metric column declared in its sidecar; the README's charts are the SVG files the lab
/// writes from them (golden files: `STACKLAB_UPDATE_GOLDEN=1` rewrites them after an intended change to the
/// charts); and the chart fixtures' failed runs and killed launches are drawn, not dropped.
@Suite("Committed baselines and the README's charts")
struct CommittedResultsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/charts")

    /// Every result CSV under results/ (baselines and the charts' own runs), comparison CSVs left out.
    static let resultFiles: [String] = {
        ["results/baselines", "results/charts"].flatMap { folder in
            let url = root.appendingPathComponent(folder)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
            return names.filter { $0.hasSuffix(".csv") && !$0.hasPrefix("compare-") }.sorted().map { "\(folder)/\($0)" }
        }
    }()

    /// The README's charts and the CSV each is drawn from.
    static let readmeCharts: [(chart: String, source: String)] = [
        ("concurrency", "results/baselines/concurrency.csv"), ("merge-cost", "results/baselines/merge-cost.csv"),
        ("startup", "results/baselines/startup.csv"), ("compare-concurrency", "results/charts/compare-concurrency.csv"),
        ("your-model-wikipedia", "results/charts/your-model-wikipedia.csv"),
        ("strategies", "results/baselines/strategies.csv"),
    ]

    /// The charts results/charts/README.md shows (beside its own file), and the CSV each is drawn from.
    static let chartsReadmeCharts: [(chart: String, source: String)] = [
        ("import-inaturalist", "results/charts/import-inaturalist.csv")
    ]

    static func temporaryFolder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("committed-\(UUID().uuidString)")
    }

    @Test("the committed results are there: five baselines and the model-file runs")
    func inventory() {
        #expect(Self.resultFiles.filter { $0.hasPrefix("results/baselines/") }.count == 5)
        #expect(Self.resultFiles.count >= 5)
    }

    @Test("a committed baseline declares every metric column, compares with itself and renders", arguments: resultFiles)
    func baselineComparesAndRenders(_ file: String) throws {
        let path = Self.root.appendingPathComponent(file).path
        let table = try ResultTable(contentsOf: URL(fileURLWithPath: path))
        #expect(table.environment != nil && table.sidecarProblem == nil, "\(file) has its sidecar")
        #expect(table.undeclaredMetrics.isEmpty, "\(file): undeclared \(table.undeclaredMetrics)")
        let compared = try StackLabBinary.run(["compare", path, path])
        #expect(compared.status == 0, "\(compared.output)")
        #expect(!compared.output.contains("warning"), "\(compared.output)")
        #expect(compared.output.contains("0 slower"))
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let html = folder.appendingPathComponent("report.html")
        let report = try StackLabBinary.run([
            "report", path, "--html", html.path, "--charts", folder.appendingPathComponent("charts").path,
        ])
        #expect(report.status == 0, "\(report.output)")
        let page = try String(contentsOf: html, encoding: .utf8)
        #expect(page.contains("<h3>Charts</h3>") && !page.contains("Undeclared in the sidecar"))
        let name = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
        let svg = try String(
            contentsOf: folder.appendingPathComponent("charts/\(name).svg"), encoding: .utf8)
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.contains("class=\"line-chart\"") || svg.contains("<rect class=\"bar\""), "a chart drew")
        #expect(svg.contains("commit "), "the footer names the commit from the sidecar")
    }

    @Test("a baseline from before the declarations (every workload's columns) compares with a run of today's CSV")
    func legacyBaselineAgainstTodaysColumns() throws {
        let legacy = try ResultTable(
            contentsOf: Self.root.appendingPathComponent("results/baselines/merge-cost.csv"))
        let workload = try #require(WorkloadRegistry.stack["merge-cost"])
        // The same runs as today's runner writes them: the identifying columns, then the workload's own.
        let metrics =
            Metric.common.map(\.name) + workload.metrics.map(\.name).filter { !Metric.common.map(\.name).contains($0) }
        let identifying = Array(legacy.columns.prefix { $0 != "timestamp" }) + ["timestamp"]
        let columns = identifying + metrics + ["error"]
        let rows = legacy.rows.map { row in
            identifying.map { legacy.value($0, in: row) ?? "" }
                + metrics.map { name in legacy.columns.lastIndex(of: name).map { row[$0] } ?? "" }
                + [legacy.value("error", in: row) ?? ""]
        }
        var today = try ResultTable(text: ResultCSV.render([columns] + rows), source: "today")
        var record = try #require(legacy.environment)
        record.metrics = Metric.common + workload.metrics.filter { !Metric.common.contains($0) }
        today.environment = record
        let comparison = try ResultComparison(baseline: legacy, current: today)
        #expect(Set(comparison.metrics) == Set(metrics), "every column today's CSV has, and no other")
        #expect(comparison.warnings.isEmpty)
        let compared = try comparison.rows()
        // The same runs: every ratio is 1, and none is called faster or slower. With four or more runs a side an
        // interval exists, so a metric the runs measure is the same; with fewer, nothing is resolved.
        #expect(compared.allSatisfy { $0.comparison.ratio == 1 && $0.verdict != .faster && $0.verdict != .slower })
        let runs =
            Dictionary(grouping: legacy.rows) { row in
                legacy.columns.prefix { $0 != "repetition" }.map { legacy.value($0, in: row) ?? "" }
            }.values.map(\.count).min() ?? 0
        if runs >= 4 {
            #expect(compared.contains { $0.verdict == .same })
        } else {
            #expect(compared.allSatisfy { $0.verdict == .unresolved })
        }
        #expect(compared.contains { $0.metric == "merge_total_ms" })
    }

    /// The documents that quote figures from the committed results (`scripts/figures.sh` lists the same).
    static var documentsWithFigures: [String] {
        let articles =
            (try? FileManager.default.contentsOfDirectory(
                atPath: root.appendingPathComponent("Sources/LabCore/LabCore.docc").path)) ?? []
        return ["README.md", "results/README.md", "results/charts/README.md"]
            + articles.filter { $0.hasSuffix(".md") }.sorted().map { "Sources/LabCore/LabCore.docc/\($0)" }
    }

    @Test("every figure the README and the lab's articles quote is what its committed CSV says")
    func figuresMatchTheirCSVs() throws {
        let documents = Self.documentsWithFigures.map { Self.root.appendingPathComponent($0).path }
        let checked = try StackLabBinary.run(["figures", "--check", "--root", Self.root.path] + documents)
        #expect(checked.status == 0, "\(checked.output)")
        let counted = checked.output.split(separator: "\n").compactMap { line -> Int? in
            guard let range = line.range(of: ": ") else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }
        #expect(counted.reduce(0, +) > 200, "the documents' figures are marked: \(checked.output)")
    }

    @Test("the README's charts are the SVG files stacklab report --charts writes from the committed CSVs")
    func readmeChartsAreTheLabs() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let chartsReadme = try String(
            contentsOf: Self.root.appendingPathComponent("results/charts/README.md"), encoding: .utf8)
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for (chart, source) in Self.readmeCharts + Self.chartsReadmeCharts {
            #expect(
                readme.contains("(results/charts/\(chart).svg)") || chartsReadme.contains("(\(chart).svg)"),
                "the README or results/charts/README.md shows \(chart).svg")
            let written = try StackLabBinary.run([
                "report", Self.root.appendingPathComponent(source).path, "--charts", folder.path,
            ])
            #expect(written.status == 0, "\(written.output)")
            let fresh = try String(contentsOf: folder.appendingPathComponent("\(chart).svg"), encoding: .utf8)
            let committed = Self.root.appendingPathComponent("results/charts/\(chart).svg")
            if ProcessInfo.processInfo.environment["STACKLAB_UPDATE_GOLDEN"] == "1" {
                try Data(fresh.utf8).write(to: committed)
            }
            #expect(
                (try? String(contentsOf: committed, encoding: .utf8)) == fresh,
                "results/charts/\(chart).svg is not what stacklab report --charts writes from \(source)")
        }
        #expect(
            readme.range(of: #"results/charts/[^)]*\.png"#, options: .regularExpression) == nil,
            "no chart the README shows is left a PNG")
        let pictures = try FileManager.default.contentsOfDirectory(
            atPath: Self.root.appendingPathComponent("results/charts").path)
        #expect(!pictures.contains { $0.hasSuffix(".png") }, "results/charts holds no PNG")
    }

    @Test("failed runs and killed launches are drawn as marks, not dropped")
    func errorsAreDrawn() throws {
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let files = ["concurrency-errors.csv", "merge-cost-errors.csv", "startup.csv", "compare.csv"]
        let result = try StackLabBinary.run(
            ["report"] + files.map { Self.fixtures.appendingPathComponent($0).path } + ["--charts", folder.path])
        #expect(result.status == 0, "\(result.output)")
        func svg(_ name: String) throws -> String {
            try String(contentsOf: folder.appendingPathComponent("\(name).svg"), encoding: .utf8)
        }
        // A wholly failed cell (memory/nested-contexts) and a partly failed one, marked on the lines.
        let concurrency = try svg("concurrency-errors")
        #expect(concurrency.contains("<path class=\"failed\""))
        #expect(concurrency.contains("failed in 2 of 2 runs"), "the wholly failed cell")
        #expect(concurrency.contains("(1 of 2 failed)"), "the partly failed one")
        #expect(try svg("merge-cost-errors").contains("<path class=\"failed\""))
        // The hand-made startup file has no sidecar: killed launches still marked at the deadline, and the
        // footer says the machine is unknown.
        let startup = try svg("startup")
        #expect(startup.contains("<path class=\"killed\"") && startup.contains("<line class=\"rule\""))
        #expect(startup.contains("machine and commit unknown"))
        // The comparison: a bar per cell coloured by its verdict, every verdict the file holds.
        let compare = try svg("compare")
        for verdict in ["improved", "regressed", "unchanged", "inconclusive"] {
            #expect(compare.contains(">\(verdict)</text>"), "legend: \(verdict)")
        }
        #expect(compare.contains("<rect class=\"change\""))
    }
}
