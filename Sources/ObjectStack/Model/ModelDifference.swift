import Foundation

/// What changes between two versions of a model, and whether a lightweight (inferred) migration covers it.
///
/// For example:
/// ```swift
/// let versions = try ManagedObjectModel.versions(contentsOf: url)
/// let difference = ModelDifference(from: versions[0].model, to: versions[1].model)
/// for change in difference.changes { print(change) }
/// if !difference.isLightweightMigratable { print(difference.reasonsNotLightweight) }
/// ```
/// Entities and properties are matched as Core Data's inferred mapping matches them: a destination element
/// whose renaming identifier names a source element, or whose canonical name (renaming identifier, else
/// name) equals the source's, is that element renamed; otherwise elements match by name. Each entity's
/// properties are compared with inherited ones included, so a property moved up or down a hierarchy is not a
/// change.
///
/// Lightweight, as in Core Data: adding, removing and renaming entities, attributes and relationships;
/// adding a required attribute with a default value; optional to required with a default value; required to
/// optional; changing the hierarchy; to-one to to-many; ordered to unordered and back; adding and removing
/// indexes and uniqueness constraints; version hash modifiers. Anything else (a type change, a new required
/// attribute without a default, to-many to to-one, a new destination, a relationship becoming required, an
/// entity becoming abstract) needs a custom migration and is listed in `reasonsNotLightweight`.
/// - Complexity: O(*e* + *p*), the entities and properties of both models.
/// - Note: Immutable; safe to share between threads.
public struct ModelDifference: Sendable, CustomStringConvertible {
    /// The model migrated from.
    public let source: ManagedObjectModel
    /// The model migrated to.
    public let destination: ManagedObjectModel
    /// Every change, in the destination's entity order (removed entities last).
    public let changes: [Change]
    /// Each destination entity that has a source entity, with where its properties come from.
    public let entityMappings: [EntityMapping]
    /// Why a lightweight migration does not cover the changes: one sentence per change it cannot infer.
    public let reasonsNotLightweight: [String]
    /// The entities whose version hash differs: destination names, then removed source names. A store
    /// written with `source` needs migrating exactly when this is not empty.
    public let differingEntityNames: [String]

    /// Whether nothing changes between the two models.
    public var isEmpty: Bool { changes.isEmpty }

    /// Whether an inferred (lightweight) migration takes a store from `source` to `destination`.
    public var isLightweightMigratable: Bool { reasonsNotLightweight.isEmpty }

    /// Compares two models.
    public init(from source: ManagedObjectModel, to destination: ManagedObjectModel) {
        self.source = source
        self.destination = destination
        var changes: [Change] = []
        var reasons: [String] = []
        var mappings: [EntityMapping] = []
        var differing: [String] = []
        let matches = Self.match(source.entities, destination.entities)
        for entity in destination.entities {
            guard let old = matches[ObjectIdentifier(entity)] else {
                changes.append(.entityAdded(entity: entity.name))
                differing.append(entity.name)
                continue
            }
            if old.versionHash != entity.versionHash { differing.append(entity.name) }
            if old.name != entity.name { changes.append(.entityRenamed(from: old.name, to: entity.name)) }
            let comparison = EntityComparison(old: old, new: entity, entityMatches: matches)
            changes += comparison.changes
            reasons += comparison.reasonsNotLightweight
            mappings.append(
                EntityMapping(source: old, destination: entity, sourcePropertyNames: comparison.sourcePropertyNames))
        }
        let matched = Set(matches.values.map(ObjectIdentifier.init))
        for old in source.entities where !matched.contains(ObjectIdentifier(old)) {
            changes.append(.entityRemoved(entity: old.name))
            differing.append(old.name)
        }
        self.changes = changes
        self.entityMappings = mappings
        self.reasonsNotLightweight = reasons
        self.differingEntityNames = differing
    }

    /// A summary: the changes, then whether a lightweight migration covers them.
    public var description: String {
        guard !isEmpty else { return "no changes" }
        var lines = changes.map(\.description)
        lines.append(
            isLightweightMigratable
                ? "lightweight migration: yes"
                : "lightweight migration: no (" + reasonsNotLightweight.joined(separator: "; ") + ")")
        return lines.joined(separator: "\n")
    }

    // MARK: - Matching

    /// The source element each destination element continues, by renaming identifier first, then by name.
    static func match<Element>(
        _ old: [Element], _ new: [Element], name: (Element) -> String, renamingIdentifier: (Element) -> String?
    ) -> [(new: Element, old: Element?)] {
        var byName: [String: Int] = [:]
        var byCanonical: [String: Int] = [:]
        for (position, element) in old.enumerated() {
            byName[name(element)] = position
            let canonical = renamingIdentifier(element) ?? name(element)
            if byCanonical[canonical] == nil { byCanonical[canonical] = position }
        }
        var taken: Set<Int> = []
        var result: [(new: Element, old: Element?)] = []
        for element in new {
            var candidates: [Int?] = []
            if let identifier = renamingIdentifier(element) {
                candidates += [byName[identifier], byCanonical[identifier]]
            }
            candidates += [byName[name(element)], byCanonical[name(element)]]
            let found = candidates.lazy.compactMap { $0 }.first { !taken.contains($0) }
            if let found { taken.insert(found) }
            result.append((element, found.map { old[$0] }))
        }
        return result
    }

    private static func match(
        _ old: [EntityDescription], _ new: [EntityDescription]
    ) -> [ObjectIdentifier: EntityDescription] {
        var result: [ObjectIdentifier: EntityDescription] = [:]
        for pair in match(old, new, name: \.name, renamingIdentifier: \.renamingIdentifier) {
            if let source = pair.old { result[ObjectIdentifier(pair.new)] = source }
        }
        return result
    }
}
