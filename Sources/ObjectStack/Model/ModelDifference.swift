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
/// Lightweight, as in Core Data's "Lightweight Migration" rules: adding, removing and renaming entities,
/// attributes and relationships; adding a required attribute with a default value; optional to required with
/// a default value; required to optional; to-one to to-many; ordered to unordered and back; adding and
/// removing indexes and uniqueness constraints; version hash modifiers; changing the hierarchy (a new parent
/// or child entity, properties moved up or down, an entity moved out of a hierarchy) as long as no two
/// hierarchies merge. Anything else (a type change, a new required attribute or relationship, optional to
/// required without a default, to-many to to-one, a new destination, a relationship becoming required, an
/// entity becoming abstract, two hierarchies merged) needs a custom migration and is listed in
/// `reasonsNotLightweight`.
///
/// This is the one decision of what a lightweight migration covers: `StoreMigrator` migrates a store exactly
/// when `isLightweightMigratable` holds, refusing with these reasons otherwise. Where the migrator cannot
/// carry something Core Data's rules allow (a to-many whose inverse changes how it is stored so that existing
/// links would be dropped), that is a reason here too, so `stacklab model` and the migrator agree.
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

    /// Compares two models; with a configuration, only the entities it holds (as a store of it is migrated).
    public init(from source: ManagedObjectModel, to destination: ManagedObjectModel, configuration: String? = nil) {
        self.source = source
        self.destination = destination
        var changes: [Change] = []
        var reasons: [String] = []
        var mappings: [EntityMapping] = []
        var differing: [String] = []
        let matching = ModelMatching(source: source, destination: destination)
        let destinationEntities = destination.entities(forConfiguration: configuration)
        var matched: Set<ObjectIdentifier> = []
        for entity in destinationEntities {
            guard let old = matching.source(of: entity) else {
                changes.append(.entityAdded(entity: entity.name))
                differing.append(entity.name)
                continue
            }
            matched.insert(ObjectIdentifier(old))
            if old.versionHash != entity.versionHash { differing.append(entity.name) }
            if old.name != entity.name { changes.append(.entityRenamed(from: old.name, to: entity.name)) }
            let comparison = EntityComparison(old: old, new: entity, matching: matching)
            changes += comparison.changes
            reasons += comparison.reasonsNotLightweight
            mappings.append(
                EntityMapping(source: old, destination: entity, sourcePropertyNames: comparison.sourcePropertyNames))
        }
        for old in source.entities(forConfiguration: configuration) where !matched.contains(ObjectIdentifier(old)) {
            changes.append(.entityRemoved(entity: old.name))
            differing.append(old.name)
        }
        reasons += Self.mergedHierarchies(destinationEntities, matching)
        self.changes = changes
        self.entityMappings = mappings
        // An inherited property's reason comes once per entity of the hierarchy; once is enough.
        var seen: Set<String> = []
        self.reasonsNotLightweight = reasons.filter { seen.insert($0).inserted }
        self.differingEntityNames = differing
    }

    /// Core Data cannot merge hierarchies: entities that share no root in the source cannot share one in the
    /// destination. (Stores key a hierarchy's rows in one key space, so merged rows' keys would collide.)
    private static func mergedHierarchies(_ entities: [EntityDescription], _ matching: ModelMatching) -> [String] {
        var oldRootsByNewRoot: [String: [String]] = [:]
        var order: [String] = []
        for entity in entities {
            guard let old = matching.source(of: entity) else { continue }
            let root = entity.rootEntity.name
            if oldRootsByNewRoot[root] == nil { order.append(root) }
            if !oldRootsByNewRoot[root, default: []].contains(old.rootEntity.name) {
                oldRootsByNewRoot[root, default: []].append(old.rootEntity.name)
            }
        }
        return order.compactMap { root in
            guard let oldRoots = oldRootsByNewRoot[root], oldRoots.count > 1 else { return nil }
            return
                "the hierarchy of \(root) merges entities of separate hierarchies (\(oldRoots.joined(separator: ", "))): "
                + "a lightweight migration cannot merge hierarchies"
        }
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
}
