import Foundation
import LabCore
import TestSupport
import Testing

/// `stacklab gate` as a command, on the gate trials recorded in LabCoreTests' fixtures (`Fixtures/gate`): its exit
/// statuses, the pooled CSV and the Markdown.
@Suite("stacklab gate as a command")
struct GateCommandTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("LabCoreTests/Fixtures/gate")

    @Test("stacklab gate: exit 1 on a slowed-down trial, 0 on an unchanged one; the pooled CSV and the Markdown")
    func command() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("gate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: out) }
        func gate(_ trial: String) throws -> (status: Int32, output: String) {
            try StackLabBinary.run([
                "gate", Self.folder.appendingPathComponent("\(trial)-base.csv").path,
                Self.folder.appendingPathComponent("\(trial)-current.csv").path, "--out",
                out.appendingPathComponent("\(trial).csv").path, "--markdown",
                out.appendingPathComponent("\(trial).md").path,
            ])
        }
        let slowed = try gate("trial-1")
        #expect(slowed.status == 1, "\(slowed.output)")
        #expect(slowed.output.contains("verdict: REGRESSION"))
        let pooled = ResultCSV.parse(try String(contentsOf: out.appendingPathComponent("trial-1.csv"), encoding: .utf8))
        #expect(
            pooled.first == [
                "metric", "pairs", "pooled_change_pct", "change_low_pct", "change_high_pct", "p_value", "verdict",
                "interval_verdict", "threshold_pct", "alpha", "confidence_pct",
            ])
        #expect(
            pooled.dropFirst().first == [
                "cpu_ms", "80", "+9.7", "+5.4", "+15.5", "0.0000", "regressed", "slower", "5", "0.01", "95",
            ])
        let markdown = try String(contentsOf: out.appendingPathComponent("trial-1.md"), encoding: .utf8)
        #expect(markdown.hasPrefix("### stacklab gate: REGRESSION"))
        #expect(markdown.contains("| `cpu_ms` | 80 | +9.7% | +5.4% to +15.5% | 0.0000 | **regressed** | slower |"))
        #expect(markdown.contains("#### per cell (killed_by_watchdog): nothing slower"))
        let unchanged = try gate("trial-2")
        #expect(unchanged.status == 0, "\(unchanged.output)")
        #expect(unchanged.output.contains("verdict: no regression"))
    }

    @Test("bad input is exit 2: a missing file, a metric column a file lacks")
    func badInput() throws {
        let base = Self.folder.appendingPathComponent("trial-2-base.csv").path
        #expect(try StackLabBinary.run(["gate", base, "/nonexistent/current.csv"]).status == 2)
        let missing = try StackLabBinary.run(["gate", base, base, "--metric", "latency_ms"])
        #expect(missing.status == 2)
        #expect(missing.output.contains("no metric column 'latency_ms'"))
        #expect(try StackLabBinary.run(["gate", base, base, "--threshold", "lots"]).status == 2)
    }
}
