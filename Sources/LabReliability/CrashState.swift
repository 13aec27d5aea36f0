/// One state the files of a recorded run could be in after a power cut, as `CrashReplay` plans it: the point of
/// the log where the power went, and which of the writes not yet synced then had reached the disk.
///
/// For example:
/// ```swift
/// let state = replay.state(17, of: 2_000, seed: 1)
/// try replay.materialize(state, in: folder)
/// ```
/// A state is a value: the same replay builds the same files from it, in any process.
public struct CrashState: Sendable, Codable, Equatable, CustomStringConvertible {
    /// How the state treats what was written but not synced at its point.
    public enum Kind: String, Sendable, Codable {
        /// Everything written before the point is there (the disk wrote back in order); `torn` tears the last
        /// write not synced at 512-byte sectors.
        case prefix
        /// What was synced is there; of the rest, each page has some of its writes, in order (a dirty page may or
        /// may not have reached the disk, in any order across pages), sizes and names come or not (names in
        /// order, as a journaling file system commits them); `torn` tears one page's next write at 512-byte
        /// sectors.
        case sampled
    }

    /// The state's number in its plan.
    public let number: Int
    /// How many of the log's events took effect before the power went.
    public let point: Int
    public let kind: Kind
    /// Whether a write is torn at sector granularity.
    public let torn: Bool
    /// The seed of the state's own choices (which pages, which sectors).
    public let seed: UInt64

    /// A state of the log cut after `point` events.
    public init(number: Int, point: Int, kind: Kind, torn: Bool, seed: UInt64) {
        self.number = number
        self.point = point
        self.kind = kind
        self.torn = torn
        self.seed = seed
    }

    /// `state 17 (sampled, torn) at event 4211`.
    public var description: String {
        "state \(number) (\(kind.rawValue)\(torn ? ", torn" : "")) at event \(point)"
    }
}
