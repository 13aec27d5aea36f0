import Foundation
import ObjectStack

/// How many objects each concrete entity of a model gets under a `PopulationSpec` (see its description for the
/// rules): given counts first, then counts derived from the to-manys that own an entity, then roots; an entity not
/// given is raised to its floor (`PopulationSizing` sets floors so every required relationship can be wired), and
/// the entities its objects own grow with it.
///
/// Abstract entities get none: their objects are those of their concrete sub-entities.
struct PopulationCounts {
    /// Objects per entity name; abstract entities are absent.
    let byEntity: [String: Int]
    /// Why each entity has its count, for the summary (`root`, `given`, `3 per Country.moods`…).
    let reasons: [String: String]

    /// The counts of `model`'s entities under `spec`, each entity not given at least its `floors` count (by
    /// entity name), with `raisedBecause` saying why in its reason.
    init(
        model: ManagedObjectModel, spec: PopulationSpec, floors: [String: Int] = [:],
        raisedBecause: [String: String] = [:]
    ) {
        var counts: [String: Int] = [:]
        var reasons: [String: String] = [:]
        func settle(_ entity: EntityDescription, _ count: Int, _ reason: String) {
            if let floor = floors[entity.name], floor > count {
                counts[entity.name] = floor
                reasons[entity.name] =
                    "\(reason), raised to \(floor)" + (raisedBecause[entity.name].map { " for \($0)" } ?? "")
            } else {
                counts[entity.name] = count
                reasons[entity.name] = reason
            }
        }
        let concrete = model.entities.filter { !$0.isAbstract }
        for entity in concrete {
            if let given = spec.counts[entity.name] {
                counts[entity.name] = given.objects(rootCount: spec.rootCount)
                reasons[entity.name] = "given (\(given))"
            }
        }
        var unresolved = concrete.filter { counts[$0.name] == nil }
        while !unresolved.isEmpty {
            var progressed = false
            for entity in unresolved {
                let links = Self.ownerLinks(of: entity)
                if links.isEmpty {
                    settle(entity, spec.rootCount, "root")
                    progressed = true
                    continue
                }
                let owners = links.map { link in
                    Self.concrete(kindOf: link.owner, and: link.ownerKind).map { counts[$0.name] }
                }
                guard owners.allSatisfy({ $0.allSatisfy { $0 != nil } }) else { continue }
                var best = 0.0
                var reason = ""
                for (link, ownerCounts) in zip(links, owners) {
                    let owned = Self.concrete(kindOf: link.child, and: link.childKind).count
                    let total = Double(ownerCounts.reduce(0) { $0 + $1! })
                    let mean = link.ownerSide.isToMany ? Self.meanChildren(link.ownerSide, spec.children) : 1
                    let objects = total * mean / Double(max(owned, 1))
                    if objects >= best {
                        best = objects
                        reason =
                            link.ownerSide.isToMany
                            ? "\(Self.format(mean)) per \(link.ownerSide.entity.name).\(link.ownerSide.name)"
                            : "one per \(link.ownerSide.entity.name).\(link.ownerSide.name)"
                    }
                }
                settle(entity, Int(best.rounded()), reason)
                progressed = true
            }
            unresolved = unresolved.filter { counts[$0.name] == nil }
            if !progressed, let first = unresolved.first {
                // Owners that own each other: the first of the cycle starts it as a root.
                settle(first, spec.rootCount, "root (ownership cycle)")
                unresolved.removeFirst()
            }
        }
        byEntity = counts
        self.reasons = reasons
    }

    /// A relationship through which another entity owns `entity`'s objects.
    struct OwnerLink {
        /// The owner's side (a to-many, or a to-one of a one-to-one).
        let ownerSide: RelationshipDescription
        /// The entity (kind) of the owners and of the owned.
        let owner: EntityDescription, ownerKind: EntityDescription
        let child: EntityDescription, childKind: EntityDescription
    }

    /// The relationships that own `entity`: a to-one of it whose inverse is a to-many of another hierarchy, or a
    /// required to-one of a one-to-one whose other side is optional (or comes first in the model).
    static func ownerLinks(of entity: EntityDescription) -> [OwnerLink] {
        entity.relationships.compactMap { relationship in
            guard !relationship.isTransient, !relationship.isToMany, let inverse = relationship.inverse,
                !inverse.isTransient, inverse.entity.rootEntity !== entity.rootEntity
            else { return nil }
            if !inverse.isToMany {
                guard !relationship.isOptional,
                    inverse.isOptional || inverse.entity.modelIndex < relationship.entity.modelIndex
                else { return nil }
            }
            return OwnerLink(
                ownerSide: inverse, owner: inverse.entity, ownerKind: relationship.destinationEntity,
                child: relationship.entity, childKind: inverse.destinationEntity)
        }
    }

    /// The concrete entities that are kinds of both `a` and `b` (empty when they are of separate branches).
    static func concrete(kindOf a: EntityDescription, and b: EntityDescription) -> [EntityDescription] {
        let deeper: EntityDescription
        if a.isKind(of: b) {
            deeper = a
        } else if b.isKind(of: a) {
            deeper = b
        } else {
            return []
        }
        return deeper.selfAndDescendants.filter { !$0.isAbstract }
    }

    /// The mean number of children a to-many gets: the spec's range, clamped to the relationship's bounds.
    static func meanChildren(_ relationship: RelationshipDescription, _ children: ClosedRange<Int>) -> Double {
        let bounds = ChildBounds(relationship)
        let total = children.reduce(0) { $0 + bounds.clamp($1) }
        return Double(total) / Double(children.count)
    }

    static func format(_ number: Double) -> String {
        number == number.rounded() ? String(Int(number)) : String(format: "%.2f", number)
    }
}

/// The counts a to-many may hold, as the stack validates them: a required one at least `max(minCount, 1)`; an
/// optional one empty or at least `minCount`; at most `maxCount` when that is set.
struct ChildBounds {
    /// The fewest objects when empty is not allowed, and the fewest once not empty.
    let least: Int
    let leastWhenFilled: Int
    let most: Int

    init(_ relationship: RelationshipDescription) {
        let filled = max(relationship.minCount, 1)
        leastWhenFilled = filled
        least = relationship.isOptional ? 0 : filled
        most = relationship.maxCount > 0 ? relationship.maxCount : Int.max
    }

    /// `count` moved into the bounds.
    func clamp(_ count: Int) -> Int {
        var count = min(max(count, least), most)
        if count > 0 && count < leastWhenFilled { count = min(leastWhenFilled, most) }
        return count
    }

    /// Whether `count` is valid.
    func allows(_ count: Int) -> Bool {
        count <= most && (count == 0 ? least == 0 : count >= leastWhenFilled)
    }
}
