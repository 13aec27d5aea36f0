import Foundation
import ObjectStack
import ObjectStackSQLite

/// A store file migrated in place through its model bundle's history, from the version that wrote it to a later
/// one, step by step, as `stacklab store migrate` does.
///
/// For example:
/// ```swift
/// let migration = try StoreFileMigration(store: url, bundle: bundleURL, to: nil, hashes: momdURL)
/// let result = try migration.run()
/// for step in result.steps { print(step.from, step.to, step.kind, step.rows, step.duration) }
/// ```
/// Each step goes from a version to the next in version order. Where a mapping model is given for a step
/// (`stepMigrations`), that step runs it; elsewhere a lightweight (inferred) migration runs, in place in the file
/// where the change allows it, else by copying every row into a new file that replaces the old one. Every step is
/// atomic: a kill leaves the store at the version before it, openable with every row. The new layout is Core
/// Data's for the new version (entity codes, tables and join tables as Core Data names them); the old model cache
/// is dropped. The last step records Core Data's own hashes of the target version when given (`hashes`: a compiled
/// model's `VersionInfo.plist` or a store Core Data wrote at that version), with their digest and checksum;
/// without them the metadata says ObjectStack wrote it, and Core Data would migrate or refuse the file.
public struct StoreFileMigration: Sendable {
    /// One step of the walk.
    public struct Step: Sendable {
        /// The versions migrated from and to.
        public let from: String, to: String
        /// How: `unchanged` (no entity differs), `lightweight` (inferred), or `mapping model NAME` (the mapping
        /// model it ran, by name: `mapping model Moody 2-Moody 3`).
        public let kind: String
        /// The rows the store holds after the step.
        public let rows: Int
        /// How long the step took.
        public let duration: Duration
    }

    /// What a walk did.
    public struct Result: Sendable {
        /// The version the store was at, and why.
        public let start: String, startReason: String
        /// The version it is at now.
        public let target: String
        /// The steps, in order.
        public let steps: [Step]
        /// Where Core Data's hashes of the target came from, nil when none were given.
        public let hashesSource: String?

        /// The walk as text, a line per step.
        public var text: String {
            var lines = ["store at \(start): \(startReason)"]
            for step in steps {
                lines.append(
                    "  \(step.from) -> \(step.to): \(step.kind), \(step.rows) rows, "
                        + String(format: "%.1f ms", step.duration.milliseconds))
            }
            lines.append("store now at \(target)")
            lines.append(
                hashesSource.map { "Core Data's version hashes of \(target) from \($0), with digest and checksum" }
                    ?? "no Core Data hashes given (--hashes): the store's metadata says ObjectStack wrote it, so Core "
                    + "Data would migrate or refuse it; pass a compiled model's VersionInfo.plist or a store Core Data "
                    + "wrote at \(target)")
            return lines.joined(separator: "\n")
        }
    }

    /// Runs one step with a mapping model, in place and atomically, and returns the mapping model's name; nil when
    /// no mapping model is known for the step (it then runs lightweight). Given the store, the source and destination
    /// versions, and the open options for the new store.
    public typealias StepMigration =
        @Sendable (URL, ModelVersion, ModelVersion, [String: String]) throws -> String?

    /// The store file.
    public let store: URL
    /// The bundle's versions, in version order.
    public let versions: [ModelVersion]
    /// The version the store is at (given, or matched from the store).
    public let startIndex: Int
    /// Why it is at that version.
    public let startReason: String
    /// The version to migrate to.
    public let targetIndex: Int
    /// Core Data's hashes of the target version, and where they came from.
    public let hashes: (value: CoreDataVersionHashes, source: String)?
    /// The mapping-model step, when mapping models are known (a step it declines runs lightweight). Settable after
    /// planning, so that a caller reads mapping models only when the plan has a step to take.
    public var stepMigration: StepMigration?

    /// Plans the walk of the store at `store` through the versions of `bundle`.
    /// - Parameters:
    ///   - store: the store file, migrated in place.
    ///   - bundle: the model bundle (`.xcdatamodeld`) whose versions the store walks.
    ///   - from: the version the store is at; nil to match it from the store (its model cache, else its tables).
    ///   - to: the version to reach; nil for the newest in version order (which `.xccurrentversion` does not always
    ///     name).
    ///   - hashes: a compiled model (`.momd` or its `VersionInfo.plist`) or a store Core Data wrote at the target
    ///     version, to take Core Data's hashes from; nil for none.
    ///   - stepMigration: runs a step with a mapping model where one exists.
    /// - Throws: `ModelFileError` for a bundle that does not load, `ObjectStackError` when no version matches the
    ///   store or a named version is not in the bundle or comes before the store's, `StoreError` for a store or a
    ///   hashes file that does not read, or hashes that are not for the target's entities.
    public init(
        store: URL, bundle: URL, from: String? = nil, to: String? = nil, hashes: URL? = nil,
        stepMigration: StepMigration? = nil
    ) throws {
        self.store = store
        let versions = try ManagedObjectModel.versions(contentsOf: bundle)
        self.versions = versions
        func index(of name: String) throws -> Int {
            guard let found = versions.firstIndex(where: { $0.name == name }) else {
                throw ObjectStackError(
                    code: .invalidArgument,
                    message:
                        "the bundle has no version \(name) (versions: \(versions.map(\.name).joined(separator: ", ")))")
            }
            return found
        }
        if let from {
            startIndex = try index(of: from)
            startReason = "as given (--version)"
        } else {
            let match = try CoreDataStoreFile(url: store).matchVersion(in: versions)
            startIndex = try index(of: match.version.name)
            startReason = match.reason
        }
        targetIndex = try to.map(index(of:)) ?? versions.count - 1
        guard targetIndex >= startIndex else {
            throw ObjectStackError(
                code: .invalidArgument,
                message: "version \(versions[targetIndex].name) comes before the store's, \(versions[startIndex].name)")
        }
        self.stepMigration = stepMigration
        guard let hashes else {
            self.hashes = nil
            return
        }
        let target = versions[targetIndex]
        let value: CoreDataVersionHashes
        if hashes.pathExtension == "momd" || hashes.pathExtension == "plist" {
            value = try CoreDataVersionHashes(versionInfoAt: hashes, version: target.name)
        } else {
            // A store Core Data wrote: it must be a store of the target version.
            let file = try CoreDataStoreFile(url: hashes)
            let match = try file.matchVersion(in: versions)
            guard match.equalVersions.contains(target.name) else {
                throw StoreError(
                    code: .incompatibleModel,
                    message:
                        "\(hashes.lastPathComponent) is a store of \(match.version.name), not of \(target.name): its "
                        + "hashes are not the target's", url: hashes)
            }
            value = try CoreDataVersionHashes(storeAt: hashes)
        }
        guard value.covers(target.model) else {
            throw StoreError(
                code: .incompatibleModel,
                message: "the hashes from \(hashes.lastPathComponent) are for entities "
                    + value.hashes.keys.sorted().joined(separator: ", ") + ", \(target.name) has "
                    + target.model.entities.map(\.name).sorted().joined(separator: ", "), url: hashes)
        }
        self.hashes = (value, hashes.lastPathComponent)
    }

    /// Migrates the store step by step to the target version.
    /// - Parameter progress: called as each step advances.
    /// - Throws: what the step's migration throws; the store is then at the version before that step.
    public func run(progress: (@Sendable (String, MigrationProgress) -> Void)? = nil) throws -> Result {
        var steps: [Step] = []
        let clock = ContinuousClock()
        for index in startIndex..<targetIndex {
            let (from, to) = (versions[index], versions[index + 1])
            let isLast = index + 1 == targetIndex
            var options: [String: String] = [:]
            if isLast, let hashes { options[SQLiteStore.coreDataVersionHashesOption] = hashes.value.optionValue }
            let label = "\(from.name) -> \(to.name)"
            let started = clock.now
            var kind = "lightweight"
            if let stepMigration, let mapping = try stepMigration(store, from, to, options) {
                kind = "mapping model \(mapping)"
            } else {
                let migrator = StoreMigrator(
                    type: .sqlite, url: store, destinationModel: to.model, sourceModels: [from.model],
                    options: options)
                let migrated = try migrator.migrateIfNeeded { report in progress?(label, report) }
                if !migrated { kind = "unchanged" }
            }
            let duration = clock.now - started
            let total = try CoreDataStoreFile(url: store).contents(model: to.model).totalRows
            steps.append(Step(from: from.name, to: to.name, kind: kind, rows: max(total, 0), duration: duration))
        }
        return Result(
            start: versions[startIndex].name, startReason: startReason, target: versions[targetIndex].name,
            steps: steps, hashesSource: hashes?.source)
    }
}
