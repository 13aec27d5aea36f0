import Foundation
import LabEngines
import LabWorkloads
import Testing

/// The two executables' workloads: `stacklab` runs the stack workloads, `stacklab-bench` the engine comparison.
@Suite("The lab's workload registries")
struct WorkloadRegistryTests {
    @Test("the lab's registries hold every workload once, in the order scenario errors list them")
    func labRegistry() {
        #expect(WorkloadRegistry.stack.names == ["import", "read-write-mix", "merge-cost", "save-chain", "startup"])
        #expect(WorkloadRegistry.engines.names == ["engine-overhead"])
    }

    @Test("a scenario of the engine comparison, read with the stack workloads, names the program that runs it")
    func engineOverheadIsElsewhere() throws {
        let stack = WorkloadRegistry.stack.referring(WorkloadRegistry.engines.names, to: "stacklab-bench")
        let file = URL(fileURLWithPath: "/tests/overhead.yaml")
        let text = "name: overhead\nworkload: engine-overhead\nparameters: {store: sqlite, operation: insert}\n"
        #expect {
            try ScenarioFile.parse(text, file: file, workloads: stack)
        } throws: { error in
            (error as? LabError)?.code == .otherProgram
                && "\(error)"
                    == "/tests/overhead.yaml:2: workload 'engine-overhead' is run by stacklab-bench, not by this "
                    + "program: swift run -c release stacklab-bench run /tests/overhead.yaml"
        }
        #expect(try ScenarioFile.parse(text, file: file, workloads: .engines).workload.name == "engine-overhead")
    }
}
