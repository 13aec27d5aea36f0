import LabCommands
import LabEngines
import LabWorkloads

/// `stacklab-bench`: the engine comparison (`engine-overhead`: ObjectStack against SQLite's and LMDB's C APIs and
/// GRDB), with `stacklab`'s verbs and options for running and reading scenarios. The only executable that links
/// GRDB and the raw C engine code.
@main
enum StackLabBench: LabTool {
    static let commandName = "stacklab-bench"
    static let abstract = "Measure ObjectStack against the engines' C APIs and GRDB (the engine-overhead workload)."
    static let workloads = WorkloadRegistry.engines.referring(WorkloadRegistry.stack.names, to: "stacklab")
    static let verbs: [LabVerb] = [.run, .list, .check, .compare, .report, .declare, .versions]

    static func main() async { await LabCommandLine.main(Self.self) }
}
