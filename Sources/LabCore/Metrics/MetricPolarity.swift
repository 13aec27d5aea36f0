/// Which way a metric gets better: what `compare` calls an improvement or a regression, and what the charts
/// label "lower is better" or "higher is better".
public enum MetricPolarity: String, Sendable, Codable {
    /// Times, stalls, memory, sizes, watchdog kills.
    case lowerIsBetter = "lower"
    /// Throughput, and a store size a launch can reach before its deadline.
    case higherIsBetter = "higher"
    /// Counts and settings: a change is a fact about the run, neither better nor worse.
    case neutral
}
