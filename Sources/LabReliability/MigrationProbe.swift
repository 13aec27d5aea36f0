import Foundation
import LabWorkloads
import ObjectStack

/// Migrates a seeded pod store to a later pod model version, optionally killing its own process partway:
/// how the tests show that a killed migration leaves the old store whole, and how the bench times one.
public struct MigrationProbe: Sendable {
    /// When the probe kills itself with SIGKILL.
    public enum KillPoint: Sendable, Equatable {
        /// Once this share of the progress is reached while copying.
        case fraction(Double)
        /// When the migration reaches this phase (`.replacing`: the copy is complete, the swap not begun).
        case phase(MigrationProgress.Phase)
    }

    /// The migration phase called `name` (preparing, copying, replacing, finished), if any.
    public static func phase(named name: String) -> MigrationProgress.Phase? {
        MigrationProgress.Phase(rawValue: name)
    }

    /// How the store is migrated.
    public enum Method: Sendable, Equatable {
        /// A lightweight (inferred) migration of the pod store (`StoreMigrator`).
        case lightweight
        /// The pod model's mapping model built in code (`PodModel.mappingModel(to:)`), through `MigrationManager`.
        case podMapping
        /// A store Core Data wrote, through an Xcode mapping model fitting two versions of `bundle`; the store is
        /// written at the mapping's source version (`toVersion` plays no part).
        case mappingModel(URL, bundle: URL)
    }

    public var store: StoreKind
    public var url: URL
    public var toVersion: Int
    public var batchSize: Int
    public var killPoint: KillPoint?
    public var method: Method

    /// Creates a probe.
    public init(
        store: StoreKind, url: URL, toVersion: Int, batchSize: Int = 10_000, killPoint: KillPoint? = nil,
        method: Method = .lightweight
    ) {
        self.store = store
        self.url = url
        self.toVersion = toVersion
        self.batchSize = batchSize
        self.killPoint = killPoint
        self.method = method
    }

    /// What a migration did.
    public struct Result: Sendable {
        public var migrated: Bool
        public var rows: Int
        public var seconds: Double
        public var rowsPerSecond: Double { seconds > 0 ? Double(rows) / seconds : 0 }

        /// One line for `stacklab child migrate`.
        public func summary(toVersion: Int) -> String {
            migrated
                ? "migrated \(rows) rows to pod model version \(toVersion) in "
                    + String(format: "%.2f s (%.0f rows/s)", seconds, rowsPerSecond)
                : "no migration needed"
        }
    }

    /// Runs the migration (and never returns if the kill point is reached).
    public func run() throws -> Result {
        let killPoint = killPoint
        let rows = LockedValue(0)
        let clock = SystemClock()
        let start = clock.nowMilliseconds()
        let observe: @Sendable (MigrationProgress) -> Void = { progress in
            if progress.phase == .copying || progress.phase == .replacing {
                rows.withLock { $0 = max($0, progress.completedRows) }
            }
            switch killPoint {
            case .fraction(let share)? where progress.phase == .copying && progress.fractionCompleted >= share:
                kill(getpid(), SIGKILL)
            case .phase(let phase)? where progress.phase == phase:
                kill(getpid(), SIGKILL)
            default:
                break
            }
        }
        let migrated: Bool
        switch method {
        case .lightweight:
            let migrator = StoreMigrator(
                type: store.storeType, url: url, destinationModel: try PodModel.make(version: toVersion),
                sourceModels: try PodModel.models(through: toVersion - 1), batchSize: batchSize)
            migrated = try migrator.migrateIfNeeded(progress: observe)
        case .podMapping:
            migrated = try MigrationManager.migrateStore(
                at: url, type: store.storeType, from: try PodModel.make(version: 1),
                to: try PodModel.make(version: toVersion), mapping: try PodModel.mappingModel(to: toVersion),
                progress: observe)
        case .mappingModel(let mappingURL, let bundle):
            let mapping = try MappingModel(contentsOf: mappingURL)
            let (source, destination) = try mapping.versions(in: try ManagedObjectModel.versions(contentsOf: bundle))
            migrated = try MigrationManager.migrateStore(
                at: url, type: store.storeType, from: source.model, to: destination.model, mapping: mapping,
                progress: observe)
        }
        return Result(
            migrated: migrated, rows: rows.withLock { $0 },
            seconds: clock.milliseconds(since: start) / 1_000)
    }
}
