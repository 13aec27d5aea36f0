import Foundation
import LabWorkloads
import TestSupport
import Testing

/// `stacklab-bench`, the engine comparison's executable: `stacklab`'s verbs and options over the engine-overhead
/// workload; each executable points at the other for the other's scenarios.
@Suite("stacklab-bench and stacklab: each runs its own workloads")
struct BenchCommandTests {
    static let scenarios = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Scenarios")

    @Test("stacklab-bench run takes stacklab run's options and writes the engine comparison's CSV, every engine's rows")
    func benchRuns() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try StackLabBinary.run(
            [
                "run", Self.scenarios.appendingPathComponent("engine-overhead.yaml").path, "--quick", "--repetitions",
                "1", "--filter", "store=sqlite", "--filter", "operation=count", "--out", out.path,
            ], program: "stacklab-bench")
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("engine-overhead (engine-overhead): medians of the repetitions"), "\(run.output)")
        let table = try ResultTable(contentsOf: out.appendingPathComponent("engine-overhead.csv"))
        let implementations = Set(table.rows.compactMap { table.value("implementation", in: $0) })
        #expect(implementations == ["objectstack", "raw", "grdb", "swift-direct"])
        #expect(table.rows.allSatisfy { table.value("error", in: $0) == "" })
        let check = try StackLabBinary.run(
            [
                "check", Self.scenarios.appendingPathComponent("engine-overhead.yaml").path, "--quick",
                "--repetitions", "1", "--filter", "store=sqlite", "--filter", "operation=count", "--out", out.path,
            ], program: "stacklab-bench")
        #expect(check.status == 0, "\(check.output)")
    }

    @Test("stacklab refuses the engine comparison's scenario (exit 2), naming stacklab-bench; and the other way round")
    func eachPointsAtTheOther() throws {
        let overhead = Self.scenarios.appendingPathComponent("engine-overhead.yaml").path
        let stack = try StackLabBinary.run(["run", overhead, "--quick"])
        #expect(stack.status == 2)
        #expect(
            stack.output.contains(
                "workload 'engine-overhead' is run by stacklab-bench, not by this program: "
                    + "swift run -c release stacklab-bench run \(overhead)"), "\(stack.output)")
        let quick = Self.scenarios.appendingPathComponent("quick.yaml").path
        let bench = try StackLabBinary.run(["run", quick, "--quick"], program: "stacklab-bench")
        #expect(bench.status == 2)
        #expect(bench.output.contains("workload 'import' is run by stacklab, not by this program"), "\(bench.output)")
    }

    @Test("list shows a folder's scenarios and names those the other executable runs; --help shows each one's verbs")
    func listsAndHelp() throws {
        let stack = try StackLabBinary.run(["list", Self.scenarios.path])
        #expect(stack.status == 0, "\(stack.output)")
        #expect(stack.output.contains("quick "))
        #expect(stack.output.contains("engine-overhead.yaml: workload 'engine-overhead' is run by stacklab-bench"))
        let bench = try StackLabBinary.run(["list", Self.scenarios.path], program: "stacklab-bench")
        #expect(bench.status == 0, "\(bench.output)")
        #expect(bench.output.contains("engine-overhead  engine-overhead"), "\(bench.output)")
        #expect(bench.output.contains("quick.yaml: workload 'import' is run by stacklab"))
        let help = try StackLabBinary.run(["--help"], program: "stacklab-bench")
        #expect(help.status == 0)
        #expect(help.output.contains("USAGE: stacklab-bench <subcommand>"), "\(help.output)")
        for verb in ["run", "list", "check", "compare", "report", "declare", "versions"] {
            #expect(help.output.contains("  \(verb) "), "\(verb)")
        }
        for verb in ["seed-store", "crash-test", "fuzz", "serve"] { #expect(!help.output.contains("  \(verb) ")) }
    }
}
