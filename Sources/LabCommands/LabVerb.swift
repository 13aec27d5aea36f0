import ArgumentParser

/// A verb of the lab's command line. Each is written once and offered by the executables that list it in
/// ``LabTool/verbs``; the verbs that read scenarios (`run`, `list`, `check`, `report`, `declare`, `fuzz`) know
/// the workloads of the executable they run in.
public enum LabVerb: String, CaseIterable, Sendable {
    /// Runs scenario files and writes their CSVs.
    case run
    /// Lists scenarios and their matrix sizes, or the workloads' declarations.
    case list
    /// Checks a run's CSVs: every row, no error cell.
    case check
    /// Compares a result CSV with a baseline.
    case compare
    /// The startup gate's pooled verdict.
    case gate
    /// Joins the CSVs of a sharded run.
    case merge
    /// Writes the HTML report and the SVG charts.
    case report
    /// Adds declarations to an old CSV's sidecar.
    case declare
    /// Regenerates or checks the figures documents quote from result CSVs.
    case figures
    /// Serves the paged pods web service.
    case serve
    /// Builds a store of pods.
    case seedStore = "seed-store"
    /// Describes, populates and migrates an Xcode model file.
    case model
    /// Describes a store file Core Data wrote; upgrades one of ObjectStack's first layout.
    case store
    /// Prints the linked engines' versions.
    case versions
    /// Kills save loops and checks what survived.
    case crashTest = "crash-test"
    /// Fuzzes a reader of untrusted input.
    case fuzz
    /// Shows the plan a store chooses for a fetch.
    case explain
    /// Measures remote change notification latency between two processes.
    case remoteChange = "remote-change"
    /// The child processes the lab and its tests start (hidden).
    case child

    /// The verb's command, knowing `Tool`'s workloads.
    func command<Tool: LabTool>(for tool: Tool.Type) -> any ParsableCommand.Type {
        switch self {
        case .run: RunCommand<Tool>.self
        case .list: ListCommand<Tool>.self
        case .check: CheckCommand<Tool>.self
        case .compare: CompareCommand<Tool>.self
        case .gate: GateCommand.self
        case .merge: MergeCommand.self
        case .report: ReportCommand<Tool>.self
        case .declare: DeclareCommand<Tool>.self
        case .figures: FiguresCommand.self
        case .serve: ServeCommand.self
        case .seedStore: SeedStoreCommand.self
        case .model: ModelCommand.self
        case .store: StoreCommand.self
        case .versions: VersionsCommand.self
        case .crashTest: CrashTestCommand.self
        case .fuzz: FuzzCommand<Tool>.self
        case .explain: ExplainCommand.self
        case .remoteChange: RemoteChangeCommand.self
        case .child: ChildCommand.self
        }
    }
}
