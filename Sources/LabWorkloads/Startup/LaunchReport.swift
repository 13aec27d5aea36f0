import Foundation
import LabCore

/// What one launch measured, all times in milliseconds from the moment the parent started the process.
///
/// The child prints it as one JSON line prefixed `result ` when it is done; the parent adds what only it can
/// know (whether the watchdog killed the launch).
public struct LaunchReport: Codable, Sendable, Equatable {
    /// From process start to the first line of `main`.
    public var timeToMainMs: Double?
    /// From process start to the first tick of the main queue after the launch handler returned.
    public var timeToFirstFrameMs: Double?
    /// From process start to the store being added (after any migration).
    public var timeToStoreReadyMs: Double?
    /// From process start to the first screen's fetch (50 sorted pods on the view context) being done.
    public var timeToFirstScreenMs: Double?
    /// The child's CPU time (user + system, every thread, from its start) when the first screen was done: what
    /// the launch cost in work, which a busy machine changes far less than the times above.
    public var cpuToFirstScreenMs: Double?
    /// The longest stall of the main thread from `main` to the first screen (`MainThreadMeter`'s measure).
    public var mainMaxStallMs: Double?
    /// Whether opening the store migrated it.
    public var migrated = false
    /// Rows the first screen fetched.
    public var firstScreenRows = 0
    /// The last migration progress the child reported (0…1), if it migrated.
    public var migrationFraction: Double?
    /// Whether the parent killed the launch because the first frame missed the deadline.
    public var killedByWatchdog = false
    /// What went wrong, if the launch failed.
    public var error: String?

    /// An empty report.
    public init() {}
}
