/// The workloads a scenario can run, each with the parameters it reads.
public enum WorkloadKind: String, Sendable, CaseIterable {
    /// Pages of pod specs from the web service, find-or-create in a background context, merged into the main
    /// context while it fetches the first screen.
    case `import`
    /// Readers on the main context while background writers insert and update at a given rate.
    case readWriteMix = "read-write-mix"
    /// A background save of C mixed changes merged into a main context holding R registered objects.
    case mergeCost = "merge-cost"
    /// Saves travelling to the store through the design's contexts (nested: child → main → root).
    case saveChain = "save-chain"
    /// App launches as fresh child processes opening a seeded store (maybe migrating it), sync or async,
    /// under a launch watchdog.
    case startup
    /// One operation on N pods through ObjectStack, the engine's C API or GRDB, for the stack's overhead.
    case engineOverhead = "engine-overhead"

    /// The strategies the workload makes sense on.
    public var strategies: [StrategyKind] {
        switch self {
        case .mergeCost: return [.sharedCoordinator, .separateStacks, .nestedContexts]
        case .engineOverhead: return []
        default: return StrategyKind.allCases
        }
    }

    /// Every parameter the workload reads, the common ones (`store`, `strategy`, `seed`) first.
    public var parameters: [ParameterSpec] {
        let common = [
            ParameterSpec("store", .choice(StoreKind.allCases.map(\.rawValue)), default: nil, help: "the store"),
            ParameterSpec("strategy", .choice(strategies.map(\.rawValue)), default: nil, help: "the stack design"),
            ParameterSpec("seed", .integer(minimum: 0), default: .integer(1), help: "seed of the synthetic data"),
            ParameterSpec("ui_fetch_hz", .number(above: 0), default: .integer(20),
                help: "first-screen fetches per second on the main context, as a list on screen refreshes"),
        ]
        switch self {
        case .startup:
            return Self.startupParameters
        case .engineOverhead:
            // No strategy: one context (or none) on one store.
            return [
                ParameterSpec("store", .choice(EngineOverheadWorkload.stores.map(\.rawValue)), default: nil,
                    help: "the store, and the engine the raw side calls"),
                ParameterSpec("implementation", .choice(EngineOverheadWorkload.Implementation.allCases.map(\.rawValue)),
                    default: nil, help: "objectstack, raw (the engine's C API) or grdb (Codable records; SQLite only)"),
                ParameterSpec("operation", .choice(EngineOverheadWorkload.Operation.allCases.map(\.rawValue)), default: nil,
                    help: "insert, fetch-all, fetch-by-id, fetch-sorted, update, count; merge and import for objectstack"),
                ParameterSpec("objects", .integer(minimum: 10), default: .integer(10_000), quick: .integer(2_000),
                    help: "pods in the store (merge: registered in the receiving context; import: imported)"),
                ParameterSpec("samples", .integer(minimum: 1), default: .integer(3), quick: .integer(1),
                    help: "timed samples per run; median_ms is their median"),
                ParameterSpec("lookups", .integer(minimum: 1), default: .integer(1_000), quick: .integer(200),
                    help: "fetch-by-id: pods read by primary key"),
                ParameterSpec("changes", .integer(minimum: 2), default: .integer(1_000), quick: .integer(200),
                    help: "merge: objects the background save changes (half updates, half inserts)"),
                ParameterSpec("batch_size", .integer(minimum: 1), default: .integer(10_000), quick: .integer(500),
                    help: "import: pods per save; the context is reset after each"),
            ]
        case .import:
            return common + [
                ParameterSpec("objects", .integer(minimum: 1), default: .integer(10_000), quick: .integer(1_500),
                    help: "pods in the catalogue (ignored with `catalog`)"),
                ParameterSpec("page_size", .integer(minimum: 1), default: .integer(500), help: "pods per service page"),
                ParameterSpec("batch_size", .integer(minimum: 1), default: .integer(500),
                    help: "pods per find-or-create batch (one IN fetch and one save each)"),
                ParameterSpec("catalog", .text, default: nil, help: "a catalogue file (JSON Lines or TSV) instead of the synthetic one"),
                ParameterSpec("reimport", .boolean, default: .boolean(false),
                    help: "import a revised catalogue a second time and measure that (updates, no inserts)"),
            ]
        case .readWriteMix:
            return common + [
                ParameterSpec("objects", .integer(minimum: 0), default: .integer(10_000), quick: .integer(1_500),
                    help: "pods in the store before the run"),
                ParameterSpec("readers", .integer(minimum: 1), default: .integer(2), help: "reader loops on the main context"),
                ParameterSpec("reads_per_s", .number(above: 0), default: .integer(30), help: "fetches per second per reader"),
                ParameterSpec("writers", .integer(minimum: 1), default: .integer(1), help: "background writers"),
                ParameterSpec("write_rate", .number(above: 0), default: .integer(2_000),
                    help: "pods written per second per writer (half inserts, half updates)"),
                ParameterSpec("batch_size", .integer(minimum: 1), default: .integer(200), help: "pods per writer save"),
                ParameterSpec("duration_s", .number(above: 0), default: .integer(3), quick: .number(0.5),
                    help: "how long the readers and writers run"),
            ]
        case .mergeCost:
            return common + [
                ParameterSpec("registered", .integer(minimum: 0), default: .integer(10_000), quick: .integer(1_000),
                    help: "objects registered in the main context when the merges arrive"),
                ParameterSpec("changes", .integer(minimum: 3), default: .integer(1_000), quick: .integer(300),
                    help: "changes per background save: a third inserts, a third updates, a third deletes"),
                ParameterSpec("merges", .integer(minimum: 1), default: .integer(5), quick: .integer(2),
                    help: "background saves merged per run"),
            ]
        case .saveChain:
            return common + [
                ParameterSpec("objects", .integer(minimum: 1), default: .integer(1_000), quick: .integer(200),
                    help: "pods per save"),
                ParameterSpec("saves", .integer(minimum: 1), default: .integer(10), quick: .integer(3), help: "saves per run"),
            ]
        }
    }

    /// A launch has no stack design to choose: it opens one store, in one of two modes.
    private static let startupParameters = [
        ParameterSpec("store", .choice(PodStoreSeeder.Store.allCases.map(\.rawValue)), default: nil, help: "the store file's engine"),
        ParameterSpec("mode", .choice(LaunchChild.Mode.allCases.map(\.rawValue)), default: .text("async"),
            help: "sync: the store is added on the main thread in the launch handler; async: on a background queue"),
        ParameterSpec("objects", .integer(minimum: 1), default: .integer(10_000), quick: .integer(2_000),
            help: "pods in the seeded store"),
        ParameterSpec("store_version", .integer(minimum: 1), default: .integer(1),
            help: "pod model version the store is seeded with"),
        ParameterSpec("app_version", .integer(minimum: 1), default: .integer(1),
            help: "pod model version of the app; above store_version the launch migrates the store"),
        ParameterSpec("migration", .choice(StartupMigration.allCases.map(\.rawValue)), default: .text("none"),
            help: "none; lightweight: the app adds an attribute (an inferred migration); custom: a staged migration "
                + "whose custom stage back-fills it on every pod (app code touching every object)"),
        ParameterSpec("deadline_s", .number(above: 0), default: .integer(20),
            help: "the watchdog kills a launch whose first frame has not come by then"),
        ParameterSpec("seed", .integer(minimum: 0), default: .integer(1), help: "seed of the seeded pods"),
    ]
    /// Whether the workload runs a cell with these parameters (a matrix may name combinations it does not:
    /// GRDB on LMDB, a raw `merge`); cells it does not run are left out of the run and its CSV.
    public func accepts(_ parameters: [String: ScenarioValue]) -> Bool {
        switch self {
        case .engineOverhead: return EngineOverheadWorkload.accepts(parameters)
        default: return true
        }
    }

    /// Matrix parameters the workload reports in the metric column of the same name (so the CSV has it once).
    public var parametersReportedAsMetrics: Set<String> {
        self == .engineOverhead ? ["objects"] : []
    }
}
