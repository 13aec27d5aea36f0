import Foundation
import ObjectStack

/// A store's trip through a model's version history: seeded at an early version, then migrated version by
/// version to the current one, each step timed, and the whole trip once more as an app launch would take it
/// (one staged migration through every version).
///
/// For example:
/// ```swift
/// let selection = try ModelFileSelection(path: "Moody.xcdatamodeld", relativeTo: nil)
/// let history = try ModelHistory.run(versions: selection.versions, from: 0, to: selection.versionIndex,
///     spec: PopulationSpec(rootCount: 1_000), seed: 1, store: .sqlite, directory: folder)
/// print(history.text)
/// ```
/// A step the bundle ships a mapping model for (an `.xcmappingmodel` near it that fits the two versions) migrates
/// through it (`MigrationManager`), as Core Data does, and its verdict names it; one whose mapping model names a policy
/// class no Swift policy is registered for fails, naming the class. Other steps follow `ModelDifference`'s verdict,
/// the one `StoreMigrator` migrates by: a lightweight step is
/// migrated and timed; a step no lightweight migration covers (Core Data would need a mapping model or a custom
/// stage) is reported with its reasons, and the trip goes on from a store seeded afresh at that step's
/// destination version, so the later steps are still measured. A step whose data breaks the new model (a new
/// uniqueness constraint, a required value missing) is reported as failed, and the trip goes on the same way. A
/// step to or from a version the reader skips (the pre-Xcode-4 layout, a compiled `.mom`) is reported as
/// unavailable, with the reason, and the trip goes on from the next readable version.
public struct ModelHistory: Sendable {
    /// What happened at one step.
    public enum Verdict: Sendable, Equatable {
        /// The versions have the same entity version hashes: the store opens as it is.
        case unchanged
        /// Migrated by a lightweight (inferred) migration.
        case lightweight
        /// Not migrated: a lightweight migration does not cover these changes.
        case notLightweight(reasons: [String])
        /// The lightweight migration was tried and failed.
        case failed(String)
        /// Not tried: one of the two versions is skipped by the reader (the text says which and why).
        case unavailable(String)
        /// Migrated through the bundle's mapping model of this name (`MigrationManager`), as Core Data migrates a
        /// step its app ships a mapping model for.
        case mappingModel(String)

        /// `unchanged`, `lightweight`, `not lightweight`, `failed`, `unavailable` or `mapping model`.
        public var name: String {
            switch self {
            case .unchanged: return "unchanged"
            case .lightweight: return "lightweight"
            case .notLightweight: return "not lightweight"
            case .failed: return "failed"
            case .unavailable: return "unavailable"
            case .mappingModel: return "mapping model"
            }
        }

        /// Whether the step migrated the store (lightweight, or through a mapping model).
        public var migrated: Bool {
            switch self {
            case .lightweight, .mappingModel: return true
            default: return false
            }
        }
    }

    /// One step from a version to the next.
    public struct Step: Sendable {
        /// The version migrated from and to.
        public let from: String, to: String
        /// The verdict.
        public let verdict: Verdict
        /// How long the migration took (nil when none ran).
        public let duration: Duration?
        /// The changes between the two versions, in words.
        public let changes: [String]
        /// Set when the store was seeded afresh at `to` after this step, with how long that took.
        public let reseeded: Duration?
    }

    /// The versions in the trip, first to last.
    public let versionNames: [String]
    /// The store kind.
    public let store: StoreKind
    /// Objects seeded at the first version.
    public let objects: Int
    /// The version the store was first seeded at: the first readable one of the trip.
    public let seededAt: String
    /// How long seeding the first version took.
    public let seedDuration: Duration
    /// The steps, in order.
    public let steps: [Step]
    /// Opening the migrated store at the last version.
    public let openDuration: Duration
    /// One staged migration from the first version to the last, as a launch takes it (step by step when mapping
    /// models take part): nil when a step is not lightweight, has no mapping model, or failed (a launch could not take
    /// the trip without the app's own migration code).
    public let launchDuration: Duration?

    /// The time of the migrated steps, added up.
    public var stepsTotal: Duration {
        steps.compactMap(\.duration).reduce(.zero, +)
    }

    /// Seeds a store of `store` kind at `versions[from]`, migrates it step by step to `versions[to]`, opens it there,
    /// then (when every step is lightweight) seeds again and takes the whole trip as one staged migration.
    /// - Throws: `LabError.unsupported` for an in-memory store (nothing to migrate) or `from` after `to`;
    ///   `PopulationRefusal` when a version cannot be populated; the stores' errors.
    public static func run(
        versions: [ModelVersion], from: Int, to: Int, spec: PopulationSpec, seed: UInt64, store: StoreKind,
        directory: URL, mappingModels: [MappingModel]? = nil,
        policies: EntityMigrationPolicies = EntityMigrationPolicies()
    ) throws -> ModelHistory {
        try run(
            entries: versions.map(ModelVersionList.Entry.loaded), from: from, to: to, spec: spec, seed: seed,
            store: store, directory: directory, mappingModels: mappingModels, policies: policies)
    }

    /// `run(versions:…)` over every version of a model file, the skipped ones included (`ModelVersionList.entries`):
    /// the store is seeded at the first readable version from `from`; a step to or from a skipped version is
    /// `unavailable`, and the trip goes on from a store seeded afresh at the next readable version.
    ///
    /// A step the bundle has a mapping model for (`mappingModels`, or when nil those `MappingModelSearch` finds near
    /// the bundle) migrates through it, with `policies` for the classes it names, as Core Data prefers a mapping model
    /// it finds to an inferred one; the step's verdict names it.
    /// - Throws: as `run(versions:…)`, and `LabError.unsupported` when `entries[to]` is skipped or no version from
    ///   `from` to `to` is readable.
    public static func run(
        entries: [ModelVersionList.Entry], from: Int, to: Int, spec: PopulationSpec, seed: UInt64, store: StoreKind,
        directory: URL, mappingModels: [MappingModel]? = nil,
        policies: EntityMigrationPolicies = EntityMigrationPolicies()
    ) throws -> ModelHistory {
        guard store.isFile else {
            throw LabError(
                .unsupported, "an in-memory store lives only while it is open; a version history needs sqlite or lmdb")
        }
        guard entries.indices.contains(from), entries.indices.contains(to), from <= to else {
            throw LabError(
                .unsupported,
                "the history runs from an earlier version to a later one; asked for version \(from + 1) to \(to + 1) of \(entries.count)"
            )
        }
        guard let last = entries[to].version else {
            throw LabError(
                .unsupported,
                "the history's last version \(entries[to].name) is skipped: \(entries[to].skipReason ?? "")")
        }
        guard let firstLoaded = (from...to).first(where: { entries[$0].version != nil }),
            let first = entries[firstLoaded].version
        else {
            throw LabError(.unsupported, "no version from \(entries[from].name) to \(entries[to].name) is readable")
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent("history.\(store.name)")
        try store.storeType.destroyStore(at: url)
        let clock = ContinuousClock()

        func seedStore(_ version: ModelVersion) throws -> (Duration, Int) {
            try store.storeType.destroyStore(at: url)
            let plan = try PopulationPlan(model: version.model, spec: spec, seed: seed)
            let started = clock.now
            let result = try ModelPopulator.populateStore(plan, store: store, url: url)
            return (clock.now - started, result.objects)
        }

        let mappings =
            mappingModels ?? entries.lazy.compactMap(\.version).first.map {
                MappingModelSearch.mappingModels(near: $0.url.deletingLastPathComponent()).models
            } ?? []
        /// The mapping model for a step, if the bundle has one.
        func mapping(_ source: ModelVersion, _ destination: ModelVersion) -> MappingModel? {
            mappings.first { $0.maps(from: source, to: destination) }
        }
        /// Migrates the store one step: through the step's mapping model, or by a lightweight migration.
        func migrate(_ source: ModelVersion, _ destination: ModelVersion, through mapping: MappingModel?) throws {
            if let mapping {
                try MigrationManager.migrateStore(
                    at: url, type: store.storeType, from: source.model, to: destination.model, mapping: mapping,
                    policies: policies)
            } else {
                try StoreMigrator(
                    type: store.storeType, url: url, destinationModel: destination.model, sourceModels: [source.model]
                ).migrateIfNeeded()
            }
        }

        let (seedDuration, objects) = try seedStore(first)
        var steps: [Step] = []
        var allLightweight = firstLoaded == from
        var allMigrate = firstLoaded == from
        for index in from..<to {
            guard let source = entries[index].version, let destination = entries[index + 1].version else {
                allLightweight = false
                allMigrate = false
                let skipped = entries[index].version == nil ? entries[index] : entries[index + 1]
                var reseed: Duration?
                if let destination = entries[index + 1].version, index + 1 > firstLoaded {
                    (reseed, _) = try seedStore(destination)
                }
                steps.append(
                    Step(
                        from: entries[index].name, to: entries[index + 1].name,
                        verdict: .unavailable("\(skipped.name) is skipped: \(skipped.skipReason ?? "")"),
                        duration: nil, changes: [], reseeded: reseed))
                continue
            }
            let difference = ModelDifference(from: source.model, to: destination.model)
            let changes = difference.changes.map(\.description)
            if difference.differingEntityNames.isEmpty {
                steps.append(
                    Step(
                        from: source.name, to: destination.name, verdict: .unchanged, duration: nil, changes: changes,
                        reseeded: nil))
                continue
            }
            if let mapping = mapping(source, destination) {
                allLightweight = false
                let started = clock.now
                do {
                    try migrate(source, destination, through: mapping)
                    steps.append(
                        Step(
                            from: source.name, to: destination.name, verdict: .mappingModel(mapping.name),
                            duration: clock.now - started, changes: changes, reseeded: nil))
                } catch {
                    allMigrate = false
                    let (reseed, _) = try seedStore(destination)
                    steps.append(
                        Step(
                            from: source.name, to: destination.name,
                            verdict: .failed("mapping model \(mapping.name): \(error)"), duration: nil,
                            changes: changes,
                            reseeded: reseed))
                }
                continue
            }
            guard difference.isLightweightMigratable else {
                allLightweight = false
                allMigrate = false
                let (reseed, _) = try seedStore(destination)
                steps.append(
                    Step(
                        from: source.name, to: destination.name,
                        verdict: .notLightweight(reasons: difference.reasonsNotLightweight), duration: nil,
                        changes: changes,
                        reseeded: reseed))
                continue
            }
            let migrator = StoreMigrator(
                type: store.storeType, url: url, destinationModel: destination.model,
                sourceModels: [source.model])
            let started = clock.now
            do {
                try migrator.migrateIfNeeded()
                steps.append(
                    Step(
                        from: source.name, to: destination.name, verdict: .lightweight,
                        duration: clock.now - started, changes: changes, reseeded: nil))
            } catch {
                allLightweight = false
                allMigrate = false
                let (reseed, _) = try seedStore(destination)
                steps.append(
                    Step(
                        from: source.name, to: destination.name, verdict: .failed("\(error)"), duration: nil,
                        changes: changes, reseeded: reseed))
            }
        }

        let opened = clock.now
        let coordinator = PersistentStoreCoordinator(managedObjectModel: last.model)
        let handle = try coordinator.addPersistentStore(type: store.storeType, at: url)
        let openDuration = clock.now - opened
        try coordinator.remove(handle)

        var launchDuration: Duration?
        if allLightweight, to > from {
            _ = try seedStore(first)
            let models = entries[from..<to].compactMap { $0.version?.model }
            let manager = StagedMigrationManager([
                LightweightMigrationStage(models, label: "\(first.name) to \(last.name)")
            ])
            let started = clock.now
            try manager.migrateStore(type: store.storeType, at: url, to: last.model)
            let launch = PersistentStoreCoordinator(managedObjectModel: last.model)
            let store = try launch.addPersistentStore(type: store.storeType, at: url)
            launchDuration = clock.now - started
            try launch.remove(store)
        } else if allMigrate, to > from {
            // A launch with mapping models takes the steps one by one, as Core Data migrates through each
            // mapping model it finds.
            _ = try seedStore(first)
            let started = clock.now
            for index in from..<to {
                guard let source = entries[index].version, let destination = entries[index + 1].version,
                    ModelDifference(from: source.model, to: destination.model).differingEntityNames.isEmpty == false
                else { continue }
                try migrate(source, destination, through: mapping(source, destination))
            }
            let launch = PersistentStoreCoordinator(managedObjectModel: last.model)
            let opened = try launch.addPersistentStore(type: store.storeType, at: url)
            launchDuration = clock.now - started
            try launch.remove(opened)
        }
        try? store.storeType.destroyStore(at: url)
        return ModelHistory(
            versionNames: entries[from...to].map(\.name), store: store, objects: objects, seededAt: first.name,
            seedDuration: seedDuration, steps: steps, openDuration: openDuration, launchDuration: launchDuration)
    }

    /// The trip for people: one line per step with its verdict and time, the reasons of the steps that are not
    /// lightweight, and the totals.
    public var text: String {
        func ms(_ duration: Duration?) -> String { duration.map { String(format: "%.1f ms", $0.milliseconds) } ?? "-" }
        var lines = [
            "\(store.name): seeded \(objects) objects at \(seededAt) in \(ms(seedDuration))"
        ]
        for step in steps {
            lines.append("  \(step.from) -> \(step.to): \(step.verdict.name), \(ms(step.duration))")
            switch step.verdict {
            case .mappingModel(let name):
                lines[lines.count - 1] = "  \(step.from) -> \(step.to): mapping model \(name), \(ms(step.duration))"
            case .notLightweight(let reasons): lines += reasons.map { "      - \($0)" }
            case .failed(let message), .unavailable(let message): lines.append("      - \(message)")
            default: break
            }
            if let reseeded = step.reseeded {
                lines.append("      (store seeded afresh at \(step.to) in \(ms(reseeded)) to go on)")
            }
        }
        lines.append("  steps total: \(ms(stepsTotal)); open at \(versionNames.last ?? "?"): \(ms(openDuration))")
        let mapped = steps.contains { $0.verdict.name == "mapping model" }
        let trip = "\(versionNames.first ?? "?") -> \(versionNames.last ?? "?")"
        lines.append(
            "  launch ("
                + (mapped ? "\(trip) step by step, through the mapping models" : "one staged migration \(trip)")
                + ", then open): "
                + (launchDuration.map { ms($0) } ?? "not possible without the app's own migration code"))
        return lines.joined(separator: "\n")
    }
}
