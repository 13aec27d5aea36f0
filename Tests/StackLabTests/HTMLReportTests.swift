import Foundation
import Testing

/// `stacklab report --html` on the committed fixtures: one page that needs no network, with the summary
/// tables, a chart per metric whose bars carry their values, the comparison's verdicts, the killed launch
/// marked and the import phases drawn. `scripts/report-browser-check.sh` renders the same page in Chromium.
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

    @Test("Tables, charts with hover values, verdicts with p, the killed launch and the phases")
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
        #expect(page.contains("<tr class=\"regressed\"><td>regressed</td>"))
        #expect(page.contains("<td>+42.2%</td><td>0.008</td>"), "the change and p of the regression")
        #expect(page.contains("killed 1 of 5"), "the killed launch in the table")
        #expect(page.contains("killed by the watchdog in 1 of 5 runs"), "and on its bar")
        #expect(page.contains("Phases of concurrency.csv"))
        #expect(Self.count("<rect class=\"phase\"", in: page) >= 12 * 5)
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
