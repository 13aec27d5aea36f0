import Foundation
import TestSupport
import Testing

/// `stacklab compare` as a command: its exit statuses on LabCoreTests' comparison fixtures.
@Suite("stacklab compare")
struct CompareCommandTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("LabCoreTests/Fixtures/compare")

    @Test("stacklab compare exits 1 when a cell is slower, 0 without one, 2 on bad input")
    func exitStatus() throws {
        let baseline = CompareCommandTests.fixtures.appendingPathComponent("baseline.csv").path
        let current = CompareCommandTests.fixtures.appendingPathComponent("current.csv").path
        let regressed = try StackLabBinary.run(["compare", baseline, current])
        #expect(regressed.status == 1)
        #expect(regressed.output.contains("slower"))
        #expect(try StackLabBinary.run(["compare", baseline, current, "--metric", "objects_per_s"]).status == 0)
        #expect(try StackLabBinary.run(["compare", baseline, baseline]).status == 0)
        let missing = try StackLabBinary.run(["compare", baseline, "/nonexistent/current.csv"])
        #expect(missing.status == 2)
        #expect(missing.output.contains("/nonexistent/current.csv"))
        #expect(try StackLabBinary.run(["compare", baseline, current, "--threshold", "lots"]).status == 2)
        #expect(try StackLabBinary.run(["compare", baseline]).status == 2)
    }
}
