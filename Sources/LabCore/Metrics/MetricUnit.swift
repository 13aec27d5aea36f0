/// What a metric's numbers count, as the column name's suffix says it and a chart's axis labels it.
public enum MetricUnit: String, Sendable {
    case milliseconds = "ms"
    case objects
    case objectsPerSecond = "objects/s"
    case millisecondsPerSecond = "ms/s"
    case megabytes = "MB"
    case bytes
    /// A ratio of two like quantities (CPU time over wall time, ObjectStack's time over the raw engine's).
    case ratio
    /// A yes/no fact, 1 or 0 (written `true`/`false`).
    case flag
    /// A plain count of events (fetches, merges).
    case count
}
