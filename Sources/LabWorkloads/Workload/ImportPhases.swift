import LabCore
import Synchronization

/// Where an import's wall time went: the importer's phases, each summed over every page and batch.
///
/// The phases follow one another on the importer (its driver and its context's queue, one page at a time), so
/// together they cover the measured phase: `wall_ms` ≈ the sum of every phase. Work on the main queue that
/// overlaps them (merges, the UI's fetches) is reported beside them, not in this sum.
/// - Note: Thread-safe: the driver and the context's queue record into it.
public final class ImportPhases: Sendable {
    /// One phase of the importer's pipeline, named for its CSV column.
    public enum Phase: Int, Sendable, CaseIterable {
        /// From sending a page request to the last byte of the answer: what the app waits for the web service.
        case serviceWait
        /// Decoding a page's JSON into specs (on a model file: into its objects' JSON, `ModelImporter.decode`).
        case decode
        /// Waiting for a queue rather than working: from handing a page to the context's queue until the import
        /// block starts, and from its end until the driver runs again (under `main-only` the main queue, busy
        /// with the UI's fetches and merges; otherwise the context's own queue, usually free).
        case queueWait
        /// One `name IN {…}` fetch per batch and setting the values of found and new pods (on a model file: the
        /// importer's page, one fetch per key scope, values and relationships set on found and new objects).
        case findOrCreate
        /// The strategy's save of each batch, and the reset after it (nested contexts: child → main → root → store);
        /// on a model file the one save after the last page.
        case save
        /// After the last save: waiting for the main queue to finish the merges still queued on it.
        case mergeWait

        /// The phase's CSV column.
        public var metric: Metric {
            switch self {
            case .serviceWait: return .serviceWaitMilliseconds
            case .decode: return .decodeMilliseconds
            case .queueWait: return .queueWaitMilliseconds
            case .findOrCreate: return .findOrCreateMilliseconds
            case .save: return .saveMilliseconds
            case .mergeWait: return .mergeWaitMilliseconds
            }
        }
    }

    /// Every phase's metric, in pipeline order: the import's own columns, which a report stacks.
    public static let metrics = Phase.allCases.map(\.metric)

    private let totals = Mutex([Double](repeating: 0, count: Phase.allCases.count))

    /// The clock the phases are timed with.
    public let clock: any LabClock

    /// Creates an empty record timed with `clock`.
    public init(clock: any LabClock = SystemClock()) {
        self.clock = clock
    }

    /// Now on the record's clock, in milliseconds: a start to pass to `record(_:since:)`.
    public func now() -> Double { clock.nowMilliseconds() }

    /// Adds `milliseconds` to `phase`.
    public func record(_ phase: Phase, milliseconds: Double) {
        totals.withLock { $0[phase.rawValue] += milliseconds }
    }

    /// Adds the time from `start` (a `now()` reading) to now to `phase`, and returns now (the next phase's start).
    @discardableResult
    public func record(_ phase: Phase, since start: Double) -> Double {
        let now = clock.nowMilliseconds()
        record(phase, milliseconds: now - start)
        return now
    }

    /// Runs `body`, adding its time to `phase`.
    public func measure<T>(_ phase: Phase, _ body: () throws -> T) rethrows -> T {
        let start = clock.nowMilliseconds()
        defer { record(phase, since: start) }
        return try body()
    }

    /// The total of `phase`, in milliseconds.
    public func milliseconds(_ phase: Phase) -> Double {
        totals.withLock { $0[phase.rawValue] }
    }

    /// The sum of every phase, in milliseconds: what the importer's timeline accounts for of the wall time.
    public var totalMilliseconds: Double {
        totals.withLock { $0.reduce(0, +) }
    }

    /// Every phase as its metric.
    public var metrics: [Metric: Double] {
        let values = totals.withLock { $0 }
        return Dictionary(uniqueKeysWithValues: Phase.allCases.map { ($0.metric, values[$0.rawValue]) })
    }
}
