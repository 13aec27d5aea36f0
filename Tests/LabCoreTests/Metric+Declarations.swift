import LabCore

/// The metrics these tests' workloads and CSVs have, declared here as a workload declares its own: LabCore declares
/// only wall time, CPU time and peak memory (the lab's workloads declare these names too, in LabWorkloads).
extension Metric {
    static let objects = Metric("objects", unit: .objects, polarity: .neutral, group: "work", about: "objects written")
    static let objectsPerSecond = Metric(
        "objects_per_s", unit: .objectsPerSecond, polarity: .higherIsBetter, group: "work", about: "throughput")
    static let fetches = Metric("fetches", unit: .count, polarity: .neutral, group: "fetch", about: "fetches timed")
    static let merges = Metric("merges", unit: .count, polarity: .neutral, group: "merge", about: "saves merged")
    static let mainHitchMillisecondsPerSecond = Metric(
        "main_hitch_ms_per_s", unit: .millisecondsPerSecond, polarity: .lowerIsBetter, group: "main thread",
        about: "hitch time per second")
    static let timeToFirstScreenMilliseconds = Metric(
        "time_to_first_screen_ms", unit: .milliseconds, polarity: .lowerIsBetter, group: "launch",
        about: "to the first screen")
    static let killedByWatchdog = Metric(
        "killed_by_watchdog", unit: .flag, polarity: .lowerIsBetter, group: "deadline", about: "killed launch")
}
