import LabCommands
import LabWorkloads

/// `stacklab`: runs scenarios on the ObjectStack API and compares Core Data concurrency strategies. It links no GRDB
/// and no raw engine code: the engine comparison is `stacklab-bench`'s.
@main
enum StackLab: LabTool {
    static let commandName = "stacklab"
    static let abstract =
        "Measure and compare Core Data concurrency strategies on ObjectStack (SQLite, LMDB, in-memory)."
    static let workloads = WorkloadRegistry.stack.referring(["engine-overhead"], to: "stacklab-bench")
    static let verbs = LabVerb.allCases

    static func main() async { await LabCommandLine.main(Self.self) }
}
