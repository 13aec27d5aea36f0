import LabWorkloads

/// An executable of the lab: its name, what it is for, the workloads its scenarios may name and the verbs it
/// offers. `stacklab` and `stacklab-bench` are two of them, sharing every verb's code.
///
/// For example, the engine comparison's executable:
/// ```swift
/// @main
/// enum StackLabBench: LabTool {
///     static let commandName = "stacklab-bench"
///     static let abstract = "Compare ObjectStack with the engines' C APIs and GRDB."
///     static let workloads = WorkloadRegistry.engines.referring(WorkloadRegistry.stack.names, to: "stacklab")
///     static let verbs: [LabVerb] = [.run, .list, .check, .compare, .report, .declare, .versions]
///     static func main() async { await LabCommandLine.main(Self.self) }
/// }
/// ```
public protocol LabTool {
    /// The executable's name, as users type it (`stacklab`).
    static var commandName: String { get }
    /// What the executable is for, in one line of `--help`.
    static var abstract: String { get }
    /// The workloads its scenario files may name, and those another program runs (LabCore's
    /// `WorkloadRegistry.elsewhere`).
    static var workloads: WorkloadRegistry { get }
    /// The verbs it offers, in the order `--help` lists them.
    static var verbs: [LabVerb] { get }
}
