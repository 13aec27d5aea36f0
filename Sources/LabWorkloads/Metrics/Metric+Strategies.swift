import LabCore

/// The metrics of today's strategies in the import workload: how soon a saved change reaches the first screen, and
/// how fast an app extension imports.
extension Metric {
    /// The group of the change-to-screen latencies.
    public static let screenGroup = "change to screen"

    public static let changeToScreenP50Milliseconds = Metric(
        "change_to_screen_p50_ms", unit: .milliseconds, polarity: .lowerIsBetter, group: screenGroup,
        about: "import with newest_first: median time from a save's commit (in the app or the extension process) "
            + "to the first first-screen fetch that shows it")
    public static let changeToScreenP99Milliseconds = Metric(
        "change_to_screen_p99_ms", unit: .milliseconds, polarity: .lowerIsBetter, group: screenGroup,
        about: "import with newest_first: 99th percentile of the commit-to-first-screen latency")
    public static let screenCommits = Metric(
        "screen_commits", unit: .count, polarity: .neutral, group: screenGroup,
        about: "import with newest_first: commits whose arrival on the first screen was timed")
    public static let extensionObjectsPerSecond = Metric(
        "extension_objects_per_s", unit: .objectsPerSecond, polarity: .higherIsBetter, group: workGroup,
        about: "extension strategy: pods the extension process imported per second, from its first page request "
            + "to its last commit")

    /// The import's columns for today's strategies, in CSV order.
    public static let todaysStrategies: [Metric] = [
        .changeToScreenP50Milliseconds, .changeToScreenP99Milliseconds, .screenCommits, .extensionObjectsPerSecond,
    ]
}
