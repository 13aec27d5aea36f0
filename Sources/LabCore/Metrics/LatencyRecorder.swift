import Histogram

/// Latencies recorded into an HdrHistogram (microsecond resolution, 3 significant digits), read back as
/// percentiles in milliseconds.
public struct LatencyRecorder: Sendable {
    private var histogram = Histogram<UInt64>(
        highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: .three)
    /// The sum of the latencies recorded, in milliseconds; exact, where the histogram rounds each value.
    public private(set) var totalMilliseconds: Double = 0

    /// Creates an empty recorder.
    public init() {}

    /// Records one latency.
    public mutating func record(milliseconds: Double) {
        totalMilliseconds += milliseconds
        let microseconds = UInt64(max(1, (milliseconds * 1_000).rounded()))
        _ = histogram.record(min(microseconds, histogram.highestTrackableValue))
    }

    /// How many latencies were recorded.
    public var count: Int { Int(histogram.totalCount) }

    /// The value at `percentile` (0–100) in milliseconds; nil when nothing was recorded.
    public func percentile(_ percentile: Double) -> Double? {
        guard count > 0 else { return nil }
        return Double(histogram.valueAtPercentile(percentile)) / 1_000
    }

    /// The largest latency in milliseconds; nil when nothing was recorded.
    public var maximum: Double? {
        count > 0 ? Double(histogram.max) / 1_000 : nil
    }
}
