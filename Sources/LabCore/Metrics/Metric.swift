/// A metric column of the lab's CSV, named with its unit, which way it gets better (`polarity`) and what it
/// counts (`unit`). `results/README.md` documents each one.
public enum Metric: String, Sendable, CaseIterable {
    case wallMilliseconds = "wall_ms"
    case objects = "objects"
    case objectsPerSecond = "objects_per_s"
    case fetches = "fetches"
    case fetchP50Milliseconds = "fetch_p50_ms"
    case fetchP90Milliseconds = "fetch_p90_ms"
    case fetchP99Milliseconds = "fetch_p99_ms"
    case fetchMaxMilliseconds = "fetch_max_ms"
    case fetchTotalMilliseconds = "fetch_total_ms"
    case mainMaxStallMilliseconds = "main_max_stall_ms"
    case mainHitchMillisecondsPerSecond = "main_hitch_ms_per_s"
    case merges = "merges"
    case mergeTotalMilliseconds = "merge_total_ms"
    case mergeMaxMilliseconds = "merge_max_ms"
    case serviceWaitMilliseconds = "service_wait_ms"
    case decodeMilliseconds = "decode_ms"
    case queueWaitMilliseconds = "queue_wait_ms"
    case findOrCreateMilliseconds = "find_or_create_ms"
    case saveMilliseconds = "save_ms"
    case mergeWaitMilliseconds = "merge_wait_ms"
    case cpuMilliseconds = "cpu_ms"
    case cpuShare = "cpu_share"
    case cpuWaitMilliseconds = "cpu_wait_ms"
    case peakMemoryMegabytes = "peak_rss_mb"
    case storeBytes = "store_bytes"
    case storedObjects = "stored_objects"
    case timeToMainMilliseconds = "time_to_main_ms"
    case timeToFirstFrameMilliseconds = "time_to_first_frame_ms"
    case timeToStoreReadyMilliseconds = "time_to_store_ready_ms"
    case timeToFirstScreenMilliseconds = "time_to_first_screen_ms"
    case killedByWatchdog = "killed_by_watchdog"
    case migrated = "migrated"
    case deadlineMilliseconds = "deadline_ms"
    case deadlineCrossingObjects = "deadline_crossing_objects"
    case crossingFitErrorMilliseconds = "crossing_fit_rmse_ms"
    case medianMilliseconds = "median_ms"
    case ratioVsRaw = "ratio_vs_raw"
    case bytesPerObject = "bytes_per_object"
    case inserted = "inserted"
    case deleted = "deleted"
    case deletesRefused = "deletes_refused"

    /// Which way the metric gets better; `compare` judges a change by it and the charts label it.
    public var polarity: MetricPolarity {
        switch self {
        case .objectsPerSecond, .deadlineCrossingObjects: return .higherIsBetter
        // Counts and settings of the run, and a busier CPU, which is neither better nor worse: cpu_ms says
        // what the work cost.
        case .objects, .fetches, .merges, .storedObjects, .migrated, .deadlineMilliseconds, .cpuShare:
            return .neutral
        // What a model file's writes did: counts of the run, set by its data and model.
        case .inserted, .deleted, .deletesRefused: return .neutral
        // A worse fit is a less trustworthy crossing, not a slower app.
        case .crossingFitErrorMilliseconds: return .neutral
        default: return .lowerIsBetter
        }
    }

    /// What the metric's numbers count.
    public var unit: MetricUnit {
        switch self {
        case .objects, .storedObjects, .deadlineCrossingObjects, .inserted, .deleted, .deletesRefused: return .objects
        case .objectsPerSecond: return .objectsPerSecond
        case .mainHitchMillisecondsPerSecond: return .millisecondsPerSecond
        case .fetches, .merges: return .count
        case .peakMemoryMegabytes: return .megabytes
        case .storeBytes, .bytesPerObject: return .bytes
        case .cpuShare, .ratioVsRaw: return .ratio
        case .killedByWatchdog, .migrated: return .flag
        default: return .milliseconds
        }
    }

    /// Digits after the decimal point in the CSV.
    var decimals: Int {
        switch self {
        case .objects, .fetches, .merges, .storeBytes, .storedObjects, .objectsPerSecond, .deadlineMilliseconds,
            .bytesPerObject, .deadlineCrossingObjects, .inserted, .deleted, .deletesRefused:
            return 0
        case .ratioVsRaw, .cpuShare: return 2
        case .peakMemoryMegabytes, .cpuMilliseconds, .wallMilliseconds, .fetchTotalMilliseconds,
            .serviceWaitMilliseconds,
            .decodeMilliseconds, .queueWaitMilliseconds, .findOrCreateMilliseconds, .saveMilliseconds,
            .mergeWaitMilliseconds,
            .cpuWaitMilliseconds:
            return 1
        default: return 3
        }
    }

    /// Whether the metric is a yes/no fact, written `true`/`false`.
    var isFlag: Bool { self == .killedByWatchdog || self == .migrated }

    /// The value as a CSV cell.
    func format(_ value: Double) -> String {
        isFlag ? (value != 0 ? "true" : "false") : String(format: "%.\(decimals)f", value)
    }
}
