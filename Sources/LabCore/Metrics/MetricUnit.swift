/// What a metric's numbers count, as the column name's suffix says it and a chart's axis labels it. A workload
/// may name a unit of its own (`MetricUnit("pages/s")`); the common ones are here.
public struct MetricUnit: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    /// A unit called `name`.
    public init(_ name: String) { self.rawValue = name }

    public static let milliseconds = MetricUnit("ms")
    public static let objects = MetricUnit("objects")
    public static let objectsPerSecond = MetricUnit("objects/s")
    public static let millisecondsPerSecond = MetricUnit("ms/s")
    public static let megabytes = MetricUnit("MB")
    public static let bytes = MetricUnit("bytes")
    /// A ratio of two like quantities (CPU time over wall time, ObjectStack's time over the raw engine's).
    public static let ratio = MetricUnit("ratio")
    /// A yes/no fact, 1 or 0 (written `true`/`false`).
    public static let flag = MetricUnit("flag")
    /// A plain count of events (fetches, merges).
    public static let count = MetricUnit("count")

    public var description: String { rawValue }

    /// Digits a metric of this unit keeps in the CSV unless it says otherwise: none for counts, three for the rest.
    var defaultDecimals: Int {
        [.objects, .count, .bytes, .flag, .objectsPerSecond].contains(self) ? 0 : 3
    }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
