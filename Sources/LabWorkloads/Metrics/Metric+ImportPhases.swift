import LabCore

extension Metric {
    /// The group of the import's phases: they add up to `wall_ms`, so charts stack them.
    public static let importPhaseGroup = "import phases"

    public static let serviceWaitMilliseconds = phase(
        "service_wait_ms",
        "from sending a page request to its last byte: the web service, the loopback socket and "
            + "URLSession")
    public static let decodeMilliseconds = phase("decode_ms", "JSONDecoder on the pages")
    public static let queueWaitMilliseconds = phase(
        "queue_wait_ms",
        "waiting for a queue instead of working: from handing a page to the context's queue until "
            + "the import block starts, and from its end until the driver runs again")
    public static let findOrCreateMilliseconds = phase(
        "find_or_create_ms", "per batch: the name IN {…} fetch of the existing pods and setting the values")
    public static let saveMilliseconds = phase(
        "save_ms", "per batch: the strategy's save and the context's reset after it")
    public static let mergeWaitMilliseconds = phase(
        "merge_wait_ms", "after the last save, waiting for the merges still queued on the main queue")

    private static func phase(_ name: String, _ about: String) -> Metric {
        Metric(name, unit: .milliseconds, polarity: .lowerIsBetter, group: importPhaseGroup, decimals: 1, about: about)
    }
}
