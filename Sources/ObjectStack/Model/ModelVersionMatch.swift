import Foundation

/// Which version of a model bundle wrote a store: the versions whose entities equal, in everything Core Data's
/// version hashes cover, the model the store describes (a SQLite store's model cache), and the one picked.
///
/// For example:
/// ```swift
/// let versions = try ManagedObjectModel.versions(contentsOf: bundleURL)
/// let match = try ModelVersionMatch(storeModel: cachedModel, versions: versions)
/// print(match.version.name, match.reason)
/// ```
/// Two versions can be equal in those inputs (they differ only in indexes, user info or class names): Core Data
/// opens the store as either without a migration. The version named by `preferring` then decides; without it the
/// current version is picked if it is one of them, else the newest, and `reason` says that they could not be
/// told apart.
public struct ModelVersionMatch: Sendable {
    /// The version picked.
    public let version: ModelVersion
    /// Every version equal to the store's model in Core Data's hash inputs, in version order.
    public let equalVersions: [String]
    /// Why the version was picked, in a sentence.
    public let reason: String

    /// Finds the version of `versions` the store's model matches.
    /// - Parameters:
    ///   - storeModel: the model the store describes.
    ///   - source: how that model was read, for `reason` (such as "the store's model cache (Z_MODELCACHE)").
    ///   - versions: the bundle's versions, in version order.
    ///   - preferring: the name of the version to pick among equal ones (a `version:` option).
    /// - Throws: `ObjectStackError` `.modelMismatch` when no version matches, naming for the closest version
    ///   the first entity or property that differs; `.invalidArgument` when `preferring` names a version that does
    ///   not match.
    public init(
        storeModel: ManagedObjectModel, source: String = "the store's model", versions: [ModelVersion],
        preferring: String? = nil
    ) throws {
        let stored = Self.lines(of: storeModel)
        var equal: [ModelVersion] = []
        var closest: (version: ModelVersion, difference: String, distance: Int)?
        for version in versions {
            let lines = Self.lines(of: version.model)
            if lines == stored {
                equal.append(version)
                continue
            }
            let distance = Set(lines).symmetricDifference(stored).count
            if closest == nil || distance < closest!.distance {
                closest = (version, Self.firstDifference(store: stored, version: lines), distance)
            }
        }
        try self.init(
            equalVersions: equal, source: source, compared: versions.count, preferring: preferring,
            closest: closest.map { "\($0.version.name): \($0.difference)" },
            entities: storeModel.entities.count)
    }

    /// Picks among the versions found equal to a store by other means (its tables and columns, say).
    /// - Parameters:
    ///   - equal: the versions that match, in version order.
    ///   - source: what they were compared with, for `reason`.
    ///   - compared: how many versions were compared.
    ///   - preferring: the version to pick among several.
    ///   - closest: for none, the closest version and how it differs ("Moody 2: the store has no column ZRATING").
    /// - Throws: `ObjectStackError` `.modelMismatch` when none matches; `.invalidArgument` when `preferring` is
    ///   not one of them.
    public init(
        equalVersions equal: [ModelVersion], source: String, compared: Int, preferring: String? = nil,
        closest: String? = nil
    ) throws {
        try self.init(
            equalVersions: equal, source: source, compared: compared, preferring: preferring, closest: closest,
            entities: nil)
    }

    private init(
        equalVersions equal: [ModelVersion], source: String, compared: Int, preferring: String?, closest: String?,
        entities: Int?
    ) throws {
        guard !equal.isEmpty else {
            let detail = closest.map { " The closest is \($0)." } ?? ""
            throw ObjectStackError(
                code: .modelMismatch,
                message: "no version of the model matches \(source) (\(compared) versions compared)." + detail)
        }
        equalVersions = equal.map(\.name)
        let same =
            entities.map { "equals \(source) in every entity's version-hash inputs (\($0) entities)" }
            ?? "matches \(source)"
        if let preferring {
            guard let chosen = equal.first(where: { $0.name == preferring }) else {
                let known = equal.map(\.name).joined(separator: ", ")
                throw ObjectStackError(
                    code: .invalidArgument,
                    message: "version \(preferring) does not match \(source); the versions that do: \(known)")
            }
            version = chosen
            reason =
                equal.count == 1
                ? "\(chosen.name) \(same)"
                : "\(chosen.name), as asked: it and \(equal.count - 1) other version(s) "
                    + "(\(equal.filter { $0.name != chosen.name }.map(\.name).joined(separator: ", "))) \(same)"
            return
        }
        if equal.count == 1 {
            version = equal[0]
            reason = "\(equal[0].name) \(same)"
            return
        }
        let chosen = equal.first(where: \.isCurrent) ?? equal.last!
        version = chosen
        reason =
            "versions \(equal.map(\.name).joined(separator: ", ")) cannot be told apart: each \(same); picked "
            + "\(chosen.name) (\(chosen.isCurrent ? "the current version" : "the newest")). Name another with the "
            + "version option"
    }

    /// Core Data's version-hash inputs of every entity of a model, one line per element, sorted: a store opens
    /// with a model without a migration when their lines are equal.
    public static func lines(of model: ManagedObjectModel) -> [String] {
        lines(ofEntities: model.entities)
    }

    /// Core Data's version-hash inputs of some entities (a configuration's), one line per element, sorted.
    public static func lines(ofEntities entities: [EntityDescription]) -> [String] {
        entities.flatMap(ManagedObjectModel.structuralVersionHashText(of:)).sorted()
    }

    /// The first element (in sorted order) two models' `lines` do not share, in words.
    public static func firstDifference(store: [String], version: [String]) -> String {
        let inVersion = Set(version)
        let inStore = Set(store)
        let onlyStore = store.filter { !inVersion.contains($0) }
        let onlyVersion = version.filter { !inStore.contains($0) }
        switch (onlyStore.first, onlyVersion.first) {
        case (let s?, let v?) where s < v: return "the store has \(s), the version does not"
        case (_, let v?): return "the version has \(v), the store does not"
        case (let s?, nil): return "the store has \(s), the version does not"
        case (nil, nil): return "no difference"
        }
    }
}
