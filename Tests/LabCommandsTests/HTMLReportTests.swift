import Foundation
import TestSupport
import Testing

/// `stacklab report --html` on the committed fixtures: one page that needs no network, with the summary
/// tables, the charts the workloads declare (lines against the swept parameter, the deadline, killed launches), a bar
/// chart per metric whose bars carry their values, the comparison's verdicts and the import phases drawn. `scripts/report-browser-check.sh` renders the same page in Chromium.
@Suite("stacklab report --html")
struct HTMLReportTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/report")

    static func render() throws -> String {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("report-\(UUID().uuidString).html")
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try StackLabBinary.run(
            ["report"]
                + ["startup-base.csv", "startup-head.csv", "concurrency.csv"].map {
                    fixtures.appendingPathComponent($0).path
                } + ["--html", out.path])
        #expect(result.status == 0, "\(result.output)")
        return try String(contentsOf: out, encoding: .utf8)
    }

    static func count(_ needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

    @Test("The page is self-contained: no script, style or image from elsewhere")
    func selfContained() throws {
        let page = try Self.render()
        #expect(!page.contains("src="))
        #expect(!page.contains("<link"))
        // The only URL is SVG's namespace name, which is never fetched.
        #expect(Self.count("http", in: page) == Self.count("xmlns=\"http://www.w3.org/2000/svg\"", in: page))
    }

    @Test("Tables, charts with hover values, verdicts with intervals, the killed launch and the phases")
    func content() throws {
        let page = try Self.render()
        #expect(page.contains("Scenario <code>startup</code>"))
        #expect(page.contains("Scenario <code>concurrency</code>"))
        #expect(page.contains("<th>commit</th><td>84a7df76fa040ff8f51b1663f889dc90ab10c78b</td>"), "the sidecar")
        #expect(page.contains("No <code>.env.json</code> sidecar"), "a CSV without one says so")
        // One chart per metric with a value: the startup fixture has three, the concurrency one more.
        #expect(page.contains("time_to_first_screen_ms (lower is better)"))
        #expect(page.contains("objects_per_s (higher is better)"))
        #expect(Self.count("<rect class=\"bar\"", in: page) > 30)
        #expect(page.contains("time_to_first_screen_ms median 170.8 (min 168.4, max 173.9, n 5)"), "hover value")
        #expect(page.contains("<tr class=\"slower\"><td>slower</td><td class=\"param\">sqlite</td>"))
        #expect(page.contains("<td>1.42×</td><td>1.39–1.45</td>"), "the ratio and interval of the slower cell")
        #expect(page.contains("<line class=\"interval\""), "the intervals drawn as whiskers")
        #expect(page.contains("killed_by_watchdog in 1 of 5</span>"), "the killed launch in the table")
        #expect(page.contains("killed_by_watchdog in 1 of 5 runs"), "and on its bar")
        #expect(page.contains("aria-label=\"where the wall time went\""), "the import's phases, stacked")
        #expect(Self.count("<rect class=\"phase\"", in: page) >= 12 * 5)
        #expect(page.contains("No <code>.env.json</code> sidecar beside this CSV"), "the head fixture has none")
    }

    /// The `<svg class="line-chart">` elements of `page`, each from its opening to its closing tag.
    static func lineCharts(_ page: String) -> [String] {
        page.components(separatedBy: "<svg class=\"line-chart\"").dropFirst().map {
            String($0[..<($0.range(of: "</svg>")?.lowerBound ?? $0.endIndex)])
        }
    }

    @Test(
        "The charts the workloads declare: launch time against store size per store, stall, throughput and fetch p99 against batch size"
    )
    func chartKinds() throws {
        let page = try Self.render()
        let charts = Self.lineCharts(page)
        let titles = charts.compactMap {
            $0.components(separatedBy: "aria-label=\"").dropFirst().first?.split(separator: "\"").first
        }
        #expect(
            titles == [
                "sqlite: time_to_first_screen_ms", "lmdb: time_to_first_screen_ms", "memory: time_to_first_screen_ms",
                "main_max_stall_ms", "objects_per_s", "fetch_p99_ms",
            ])
        let sqlite = try #require(charts.first)
        // One line per mode and file (base solid, head dashed), a point per store size.
        #expect(sqlite.components(separatedBy: "<polyline class=\"line\" data-points=\"3\"").count - 1 == 4)
        #expect(sqlite.contains("<line class=\"rule\" data-value=\"2000.0\""), "the watchdog deadline")
        #expect(Self.count("<path class=\"killed\"", in: sqlite) == 2, "the killed launches, at 10k and 100k")
        #expect(sqlite.contains("killed_by_watchdog in 2 of 5 runs"))
        #expect(Self.count("<path class=\"failed\"", in: sqlite) == 1, "the async run that failed")
        #expect(sqlite.contains("objects in the store (log)") && sqlite.contains("(log)</text>"))
        let stall = try #require(charts.dropFirst(3).first)
        #expect(stall.components(separatedBy: "<polyline class=\"line\" data-points=\"3\"").count - 1 == 4)
        #expect(stall.contains("batch_size (log)"))
        for name in ["main-only", "shared-coordinator", "separate-stacks", "nested-contexts"] {
            #expect(stall.contains("data-name=\"\(name)\""))
        }
        #expect(!charts[4].contains("(ms) — lower is better (log)"), "throughput on a linear axis")
        // Every metric still has its bars, behind a disclosure.
        #expect(page.contains("<details><summary>Every metric, per cell"))
    }

    @Test("A concurrency run without a numeric swept parameter gets bars of the stall and the throughput")
    func barsWithoutSweep() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("report-bars-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let lines = try String(contentsOf: Self.fixtures.appendingPathComponent("concurrency.csv"), encoding: .utf8)
            .split(separator: "\n")
        let csv = folder.appendingPathComponent("one-batch.csv")
        try Data((lines.prefix(5).joined(separator: "\n") + "\n").utf8).write(to: csv)
        try FileManager.default.copyItem(
            at: Self.fixtures.appendingPathComponent("concurrency.env.json"),
            to: folder.appendingPathComponent("one-batch.env.json"))
        let out = folder.appendingPathComponent("report.html")
        let result = try StackLabBinary.run(["report", csv.path, "--html", out.path])
        #expect(result.status == 0, "\(result.output)")
        let page = try String(contentsOf: out, encoding: .utf8)
        #expect(Self.lineCharts(page).isEmpty)
        let charts = try #require(
            page.components(separatedBy: "<h3>Charts</h3>").dropFirst().first?
                .components(separatedBy: "<h3>").first)
        #expect(charts.contains("main_max_stall_ms (lower is better)"))
        #expect(charts.contains("objects_per_s (higher is better)"))
        #expect(!charts.contains("wall_ms"), "only those two outside the disclosure, and the phases")
        #expect(charts.contains("<rect class=\"phase\""), "the import's phases, declared in the sidecar")
    }

    @Test("Wide tables scroll inside the page; the page's check fails on an empty chart or a too-wide page")
    func layout() throws {
        let page = try Self.render()
        let tables =
            Self.count("<table class=\"summary\">", in: page) + Self.count("<table class=\"verdicts\">", in: page)
        #expect(tables == 4)
        #expect(Self.count("<div class=\"scroll\"><table", in: page) == tables)
        #expect(page.contains(".scroll { overflow-x: auto; max-width: 100%;"))
        #expect(page.contains("problems.push(\"empty line chart "))
        #expect(page.contains("scrollWidth > document.documentElement.clientWidth"))
        // The verdicts name a cell by what varies, the scenario and workload once above them.
        #expect(!page.contains("scenario=startup"))
        #expect(page.contains("Scenario startup, workload startup. Threshold"))
    }

    @Test("A CSV that is not one is bad input (exit 2), and nothing is written")
    func badInput() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("report-bad-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let csv = folder.appendingPathComponent("bad.csv")
        try Data("a,b\n1,2,3\n".utf8).write(to: csv)
        let out = folder.appendingPathComponent("out.html")
        let result = try StackLabBinary.run(["report", csv.path, "--html", out.path])
        #expect(result.status == 2)
        #expect(result.output.contains("bad.csv:2: not a result CSV"), "\(result.output)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }
}
