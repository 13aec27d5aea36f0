import LabCore

/// The metrics of the workloads that run on a concurrency strategy in this process (`StackWorkload`): what the
/// `RunSession`'s instruments and the stack measure for every run. Declared here, with the workloads: the lab
/// core knows none of them.
extension Metric {
    /// The group of the run's counts and rates.
    public static let workGroup = "work"
    /// The group of the main context's first-screen fetches.
    public static let fetchGroup = "main-context fetches"
    /// The group of the main thread's responsiveness.
    public static let mainThreadGroup = "main thread"
    /// The group of the merges into the main context.
    public static let mergeGroup = "merges"
    /// The group of the process's use of the machine and the store's size.
    public static let resourceGroup = "resources"

    public static let objects = Metric(
        "objects", unit: .objects, polarity: .neutral, group: workGroup,
        about: "objects the measured phase wrote or changed (import: specs imported; read-write-mix: pods inserted "
            + "and updated; merge-cost: changes saved; save-chain: pods saved)")
    public static let objectsPerSecond = Metric(
        "objects_per_s", unit: .objectsPerSecond, polarity: .higherIsBetter, group: workGroup,
        about: "objects / wall_ms: the measured phase's throughput")
    public static let fetches = Metric(
        "fetches", unit: .count, polarity: .neutral, group: fetchGroup,
        about: "main-context fetches timed: the first screen (50 pods by name) at ui_fetch_hz, and the readers' "
            + "fetches in read-write-mix")
    public static let fetchP50Milliseconds = Metric(
        "fetch_p50_ms", unit: .milliseconds, polarity: .lowerIsBetter, group: fetchGroup,
        about: "median latency of those fetches (HdrHistogram, 1 µs resolution): the time inside the main "
            + "context's fetch and reading the rows, not the wait for the main queue")
    public static let fetchP90Milliseconds = Metric(
        "fetch_p90_ms", unit: .milliseconds, polarity: .lowerIsBetter, group: fetchGroup,
        about: "90th percentile of the fetches' latencies")
    public static let fetchP99Milliseconds = Metric(
        "fetch_p99_ms", unit: .milliseconds, polarity: .lowerIsBetter, group: fetchGroup,
        about: "99th percentile of the fetches' latencies")
    public static let fetchMaxMilliseconds = Metric(
        "fetch_max_ms", unit: .milliseconds, polarity: .lowerIsBetter, group: fetchGroup,
        about: "the longest of the fetches")
    public static let fetchTotalMilliseconds = Metric(
        "fetch_total_ms", unit: .milliseconds, polarity: .lowerIsBetter, group: fetchGroup, decimals: 1,
        about: "the sum of the fetches' latencies: the main queue's time on the UI's fetches (with a shared "
            + "coordinator it includes waiting for the coordinator's lock)")
    public static let mainMaxStallMilliseconds = Metric(
        "main_max_stall_ms", unit: .milliseconds, polarity: .lowerIsBetter, group: mainThreadGroup,
        about: "the longest the main queue kept a frame waiting: a 60 Hz timer (period P = 16.667 ms) ticks on the "
            + "main queue; for each gap between ticks, lateness = gap − P; this is the largest")
    public static let mainHitchMillisecondsPerSecond = Metric(
        "main_hitch_ms_per_s", unit: .millisecondsPerSecond, polarity: .lowerIsBetter, group: mainThreadGroup,
        about: "the lateness of the gaps longer than 1.5 P, summed, per second measured: Apple's hitch-time ratio "
            + "(0 a smooth UI, 1000 a main thread that never served a frame on time)")
    public static let merges = Metric(
        "merges", unit: .count, polarity: .neutral, group: mergeGroup,
        about: "background saves brought into the main context (empty for main-only)")
    public static let mergeTotalMilliseconds = Metric(
        "merge_total_ms", unit: .milliseconds, polarity: .lowerIsBetter, group: mergeGroup,
        about: "main-thread time of those merges: mergeChanges(fromContextDidSave:) on the main queue with its "
            + "observers (a fetched results controller), or for nested contexts the child's save into the main "
            + "context plus the main context's save into the root")
    public static let mergeMaxMilliseconds = Metric(
        "merge_max_ms", unit: .milliseconds, polarity: .lowerIsBetter, group: mergeGroup,
        about: "the longest of those merges")
    public static let cpuShare = Metric(
        "cpu_share", unit: .ratio, polarity: .neutral, group: resourceGroup, decimals: 2,
        about: "cpu_ms / the measured phase's wall time: how many cores the process kept busy on average")
    public static let cpuWaitMilliseconds = Metric(
        "cpu_wait_ms", unit: .milliseconds, polarity: .lowerIsBetter, group: resourceGroup, decimals: 1,
        about: "the time the process's threads stood ready to run while another process had the cores "
            + "(/proc/self/task/*/schedstat): the machine's load, not the workload's")
    public static let storeBytes = Metric(
        "store_bytes", unit: .bytes, polarity: .lowerIsBetter, group: resourceGroup,
        about: "bytes of the store's files at the end (SQLite: database, WAL and shared memory; LMDB: data and "
            + "lock); empty for memory")
    public static let storedObjects = Metric(
        "stored_objects", unit: .objects, polarity: .neutral, group: workGroup,
        about: "objects in the store at the end, counted through the main context: a correctness check")
    public static let inserted = Metric(
        "inserted", unit: .objects, polarity: .neutral, group: workGroup,
        about: "on a model file: objects of the first screen's entity the writes inserted (cascades included)")
    public static let deleted = Metric(
        "deleted", unit: .objects, polarity: .neutral, group: workGroup,
        about: "on a model file: objects of the first screen's entity the writes deleted (cascades included)")
    public static let deletesRefused = Metric(
        "deletes_refused", unit: .objects, polarity: .neutral, group: workGroup,
        about: "merge-cost on a model file: delete candidates the model's delete rules refused, each passed over "
            + "for the next")

    /// What `RunSession` reports for every stack workload, in CSV order.
    public static let session: [Metric] = [
        .objects, .objectsPerSecond, .fetches, .fetchP50Milliseconds, .fetchP90Milliseconds, .fetchP99Milliseconds,
        .fetchMaxMilliseconds, .fetchTotalMilliseconds, .mainMaxStallMilliseconds, .mainHitchMillisecondsPerSecond,
        .merges, .mergeTotalMilliseconds, .mergeMaxMilliseconds, .cpuShare, .cpuWaitMilliseconds, .storeBytes,
        .storedObjects,
    ]
}
