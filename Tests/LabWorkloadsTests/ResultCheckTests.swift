import Foundation
import LabWorkloads
import Testing

@Suite("Result check")
struct ResultCheckTests {
    @Test("startup's objects, a matrix column and a metric, are two columns of two names, and the check reads them")
    func clashingColumnName() throws {
        let scenario = try ScenarioFile.parse(
            """
            name: sizes
            workload: startup
            repetitions: 1
            parameters: {store: sqlite}
            matrix:
              objects: [1000, 2000]
            """, file: URL(fileURLWithPath: "/tests/sizes.yaml"))
        let header = ResultCSV.columns(for: scenario)
        #expect(header.filter { $0 == "objects" }.count == 1)
        #expect(header.contains("objects_measured"))
        func row(_ id: String, error: String = "") -> [String] {
            header.map { $0 == "run_id" ? id : ($0 == "error" ? error : "") }
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sizes-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(ResultCSV.render([header, row("c1r1"), row("c2r1", error: "killed")]).utf8).write(to: url)
        #expect(ResultCheck.problems(in: url, scenario: scenario) == ["\(url.path):3: run c2r1 failed: killed"])
    }
}
