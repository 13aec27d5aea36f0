import Foundation
import LabCore
import Testing

/// A workload whose parameter and metric share a name, as startup's `objects` do: the count it was asked for and
/// the count it made, which a run may not meet.
private struct CountWorkload: Workload {
    let name = "count"
    let stores: [StoreKind] = []
    let metrics: [Metric] = [.objects]
    let headlineMetrics: [Metric] = [.objects]

    var parameters: [ParameterSpec] {
        [ParameterSpec("objects", .integer(minimum: 0), default: .integer(1), help: "objects asked for")]
    }

    @MainActor
    func run(_ run: WorkloadRun) async throws -> [Metric: Double] {
        // One short of what was asked: the metric's column must hold this, not the parameter's value.
        [.objects: Double(run.integer("objects") - 1)]
    }
}

@Suite("ResultCSV: one column per name")
struct ResultCSVTests {
    @Test("a metric named like a matrix parameter is written as NAME_measured, and its sidecar declares that name")
    @MainActor
    func clashIsRenamed() async throws {
        let scenario = try ScenarioFile.parse(
            """
            name: clash
            workload: count
            repetitions: 1
            matrix:
              objects: [10, 20]
            """, file: URL(fileURLWithPath: "/tests/clash.yaml"), workloads: WorkloadRegistry([CountWorkload()]))
        let header = ResultCSV.columns(for: scenario)
        #expect(Set(header).count == header.count, "one column per name: \(header)")
        let parameter = try #require(header.firstIndex(of: "objects"))
        let metric = try #require(header.firstIndex(of: "objects_measured"))
        #expect(parameter < header.firstIndex(of: "timestamp")!, "the parameter keeps its name: it names the cell")
        #expect(metric > header.firstIndex(of: "timestamp")!)

        let out = FileManager.default.temporaryDirectory.appendingPathComponent("clash-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let runner = ScenarioRunner(
            options: .init(outDirectory: out), progress: ProgressReporter(isTerminal: false) { _ in })
        _ = try await runner.run(scenario)
        let table = try ResultTable(contentsOf: runner.csvURL(for: scenario))
        #expect(table.columns == header)
        #expect(table.rows.map { table.value("objects", in: $0) } == ["10", "20"])
        #expect(table.rows.map { table.value("objects_measured", in: $0) } == ["9", "19"])
        #expect(table.declarations["objects_measured"]?.unit == .objects, "the sidecar declares the renamed column")
        #expect(table.declarations["objects"] == nil)
    }

    @Test("a metric with a name of its own keeps it")
    func noClash() throws {
        let scenario = try ScenarioFile.parse(
            """
            name: plain
            workload: count
            parameters:
              objects: 10
            """, file: URL(fileURLWithPath: "/tests/plain.yaml"), workloads: WorkloadRegistry([CountWorkload()]))
        #expect(ResultCSV.columns(for: scenario).filter { $0.hasPrefix("objects") } == ["objects"])
    }
}
