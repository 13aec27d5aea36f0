import LabCore

/// The engine comparison's metrics: one operation's median time, its ratio to the raw engine's, and what its
/// materialised results hold in memory.
extension Metric {
    /// The group of the engine comparison's metrics.
    public static let engineGroup = "engine"

    public static let medianMilliseconds = Metric(
        "median_ms", unit: .milliseconds, polarity: .lowerIsBetter, group: engineGroup,
        about: "the median of the run's timed operations (samples of them, and for reads more, up to 200, until "
            + "they add up to min_time_ms)")
    public static let ratioVsRaw = Metric(
        "ratio_vs_raw", unit: .ratio, polarity: .lowerIsBetter, group: engineGroup, decimals: 2,
        about: "the cell's median of median_ms over the raw cell's of the same store, operation and size")
    /// How many times Swift calling the engine directly the cell takes: what the cell adds over Swift's own cost.
    public static let ratioVsSwiftDirect = Metric(
        "ratio_vs_swift_direct", unit: .ratio, polarity: .lowerIsBetter, group: engineGroup, decimals: 2,
        about: "the cell's median of median_ms over the swift-direct cell's of the same store, operation and size "
            + "(Swift calling the engine's C API with no object layer)")
    /// How many times the least object layer (`swift-objects`) the cell takes: what the cell adds over any object
    /// graph's floor.
    public static let ratioVsSwiftObjects = Metric(
        "ratio_vs_swift_objects", unit: .ratio, polarity: .lowerIsBetter, group: engineGroup, decimals: 2,
        about: "fetch-all on SQLite and LMDB: the cell's median of median_ms over the swift-objects cell's of the same "
            + "store and size (swift-direct's rows, each made an object uniqued by key: the least an object layer "
            + "adds)")
    public static let ratioVsPerLookup = Metric(
        "ratio_vs_per_lookup", unit: .ratio, polarity: .lowerIsBetter, group: engineGroup, decimals: 2,
        about: "fetch-by-id: the cell's median of median_ms over the raw-per-lookup cell's of the same store and size "
            + "(each lookup in a read transaction of its own, as existingObject(with:) must)")
    public static let bytesPerObject = Metric(
        "bytes_per_object", unit: .bytes, polarity: .lowerIsBetter, group: engineGroup,
        about:
            "fetch-all: resident heap memory (not the store file's mapped pages) the materialised results hold, per pod"
    )
}
