import Foundation
import ObjectStack

/// Decides which objects each relationship links, honouring optionality and the minimum and maximum counts of
/// both sides, for the generator.
///
/// Each relationship (or pair with its inverse) is wired once, from the side it is set on:
/// - one-to-many: each owner draws its number of children (the spec's range clamped to the to-many's bounds);
///   the totals are then evened out so that every child of a required to-one has an owner and none has two;
/// - one-to-one: the two sides are paired off at random, every object of a required side paired;
/// - many-to-many and to-many without inverse: each source draws its number of destinations and picks that many
///   distinct ones, preferring those the inverse's maximum still allows, then destinations under the inverse's
///   minimum get more sources;
/// - to-one without inverse: each source picks any destination (or none, for a share of optional ones).
struct RelationshipWiring {
    /// One wired relationship: for each source, the destinations to set (one for a to-one).
    struct Links: Sendable {
        let relationship: RelationshipDescription
        var pairs: [(source: PopulationPlan.ObjectRef, targets: [PopulationPlan.ObjectRef])]
    }

    let spec: PopulationSpec
    let pool: (EntityDescription, EntityDescription) -> [PopulationPlan.ObjectRef]

    /// Wires `relationship` (and its inverse, if any).
    /// - Throws: `PopulationRefusal` naming the relationship whose counts cannot be met.
    func wire(_ relationship: RelationshipDescription, using random: inout SplitMix64) throws -> Links {
        let sources = pool(relationship.entity, relationship.inverse?.destinationEntity ?? relationship.entity)
        let targets = pool(
            relationship.destinationEntity, relationship.inverse?.entity ?? relationship.destinationEntity)
        try checkUnreachable(relationship)
        if let inverse = relationship.inverse { try checkUnreachable(inverse) }
        switch (relationship.isToMany, relationship.inverse?.isToMany) {
        case (true, false?):
            return try oneToMany(owner: relationship, owners: sources, children: targets, &random)
        case (false, true?):
            return try oneToMany(owner: relationship.inverse!, owners: targets, children: sources, &random)
        case (false, false?):
            return try oneToOne(relationship, sources, targets, &random)
        case (true, _):
            return try toMany(relationship, sources, targets, &random)
        case (false, nil):
            var links = Links(relationship: relationship, pairs: [])
            for source in sources where !relationship.isOptional || !random.chance(spec.nilShare) {
                guard !targets.isEmpty else {
                    guard relationship.isOptional else {
                        throw refusal(
                            relationship, "required, but there are no \(relationship.destinationEntity.name) objects")
                    }
                    break
                }
                links.pairs.append((source, [random.pick(targets)]))
            }
            return links
        }
    }

    private func refusal(_ relationship: RelationshipDescription, _ reason: String) -> PopulationRefusal {
        PopulationRefusal(entity: relationship.entity.name, property: relationship.name, reason)
    }

    /// A required relationship on objects that can never be its source (a sub-entity branch the inverse's
    /// destination excludes) cannot be satisfied.
    private func checkUnreachable(_ relationship: RelationshipDescription) throws {
        guard let inverse = relationship.inverse, !relationship.isOptional else { return }
        let all = pool(relationship.entity, relationship.entity).count
        let reachable = pool(relationship.entity, inverse.destinationEntity).count
        if reachable < all {
            throw refusal(
                relationship,
                "required, but its inverse \(inverse.entity.name).\(inverse.name) reaches only "
                    + "\(inverse.destinationEntity.name) objects, so \(all - reachable) object(s) can never have one")
        }
    }

    private func oneToMany(
        owner: RelationshipDescription, owners: [PopulationPlan.ObjectRef], children: [PopulationPlan.ObjectRef],
        _ random: inout SplitMix64
    ) throws -> Links {
        let childSide = owner.inverse!
        let bounds = ChildBounds(owner)
        var allotments = owners.map { _ in bounds.clamp(Int.random(in: spec.children, using: &random)) }
        let natural = allotments.reduce(0, +)
        let target = childSide.isOptional ? min(natural, children.count) : children.count
        if owners.isEmpty {
            guard target == 0 else {
                throw refusal(
                    childSide,
                    "required, but there are no \(owner.entity.name) objects to own \(children.count) object(s)")
            }
            return Links(relationship: owner, pairs: [])
        }
        try even(&allotments, to: target, bounds, &random) {
            let each: String
            if bounds.least == bounds.leastWhenFilled {
                each = bounds.most == .max ? "at least \(bounds.least)" : "\(bounds.least) to \(bounds.most)"
            } else {
                each = "none or \(bounds.leastWhenFilled)" + (bounds.most == .max ? " or more" : " to \(bounds.most)")
            }
            return refusal(
                owner,
                "\(owners.count) \(owner.entity.name) object(s) must hold \(target) \(childSide.entity.name) object(s) "
                    + "between them ("
                    + (childSide.isOptional
                        ? "as many as their draws ask for"
                        : "every one, as \(childSide.entity.name).\(childSide.name) is required")
                    + "), but each must hold \(each)")
        }
        var shuffled = children
        shuffled.shuffle(using: &random)
        var next = 0
        var links = Links(relationship: owner, pairs: [])
        links.pairs.reserveCapacity(owners.count)
        for (source, count) in zip(owners, allotments) where count > 0 {
            links.pairs.append((source, Array(shuffled[next..<(next + count)])))
            next += count
        }
        return links
    }

    /// Moves `allotments` up or down, one at a time across a shuffled order, until they add up to `target`.
    private func even(
        _ allotments: inout [Int], to target: Int, _ bounds: ChildBounds, _ random: inout SplitMix64,
        refusal: () -> PopulationRefusal
    ) throws {
        var sum = allotments.reduce(0, +)
        var order = Array(allotments.indices)
        while sum != target {
            order.shuffle(using: &random)
            var moved = false
            for index in order where sum != target {
                let current = allotments[index]
                let proposed: Int
                if sum > target {
                    proposed =
                        current > bounds.leastWhenFilled
                        ? current - 1 : (bounds.least == 0 && current <= sum - target ? 0 : current)
                } else {
                    proposed =
                        current >= bounds.leastWhenFilled
                        ? current + 1
                        : (bounds.leastWhenFilled <= target - sum + current ? bounds.leastWhenFilled : current)
                }
                guard proposed != current, bounds.allows(proposed) else { continue }
                sum += proposed - current
                allotments[index] = proposed
                moved = true
            }
            if !moved { throw refusal() }
        }
    }

    private func oneToOne(
        _ relationship: RelationshipDescription, _ sources: [PopulationPlan.ObjectRef],
        _ targets: [PopulationPlan.ObjectRef],
        _ random: inout SplitMix64
    ) throws -> Links {
        let inverse = relationship.inverse!
        let pairs: Int
        switch (relationship.isOptional, inverse.isOptional) {
        case (false, false):
            guard sources.count == targets.count else {
                throw refusal(
                    relationship,
                    "a required one-to-one with \(inverse.entity.name).\(inverse.name), also required, "
                        + "needs as many \(relationship.entity.name) as \(inverse.entity.name) objects, not \(sources.count) and \(targets.count)"
                )
            }
            pairs = sources.count
        case (false, true):
            guard sources.count <= targets.count else {
                throw refusal(
                    relationship,
                    "required one-to-one: \(sources.count) object(s) need a partner each, "
                        + "but there are \(targets.count) \(relationship.destinationEntity.name) object(s)")
            }
            pairs = sources.count
        case (true, false):
            guard targets.count <= sources.count else {
                throw refusal(
                    inverse,
                    "required one-to-one: \(targets.count) object(s) need a partner each, "
                        + "but there are \(sources.count) \(inverse.destinationEntity.name) object(s)")
            }
            pairs = targets.count
        case (true, true):
            pairs = Int((Double(min(sources.count, targets.count)) * (1 - spec.nilShare)).rounded())
        }
        var left = sources
        var right = targets
        left.shuffle(using: &random)
        right.shuffle(using: &random)
        return Links(relationship: relationship, pairs: (0..<pairs).map { (left[$0], [right[$0]]) })
    }

    private func toMany(
        _ relationship: RelationshipDescription, _ sources: [PopulationPlan.ObjectRef],
        _ targets: [PopulationPlan.ObjectRef],
        _ random: inout SplitMix64
    ) throws -> Links {
        let bounds = ChildBounds(relationship)
        let inverseBounds = relationship.inverse.map(ChildBounds.init)
        var held = [PopulationPlan.ObjectRef: Int]()
        var chosen: [[PopulationPlan.ObjectRef]] = []
        chosen.reserveCapacity(sources.count)
        for _ in sources {
            var count = bounds.clamp(Int.random(in: spec.children, using: &random))
            if count > targets.count {
                guard bounds.allows(targets.count) else {
                    throw refusal(
                        relationship,
                        "each object needs at least \(bounds.least) \(relationship.destinationEntity.name) "
                            + "object(s), but there are \(targets.count)")
                }
                count = targets.count
            }
            var picked: [PopulationPlan.ObjectRef] = []
            var pickedSet = Set<PopulationPlan.ObjectRef>()
            var attempts = 0
            while picked.count < count && attempts < count * 20 + 20 {
                attempts += 1
                let target = random.pick(targets)
                guard !pickedSet.contains(target) else { continue }
                if let inverseBounds, held[target, default: 0] >= inverseBounds.most { continue }
                pickedSet.insert(target)
                picked.append(target)
            }
            if !bounds.allows(picked.count) {
                // Destinations the inverse's maximum still allows are scarce: take them in order.
                for target in targets where !bounds.allows(picked.count) && !pickedSet.contains(target) {
                    if let inverseBounds, held[target, default: 0] >= inverseBounds.most { continue }
                    pickedSet.insert(target)
                    picked.append(target)
                }
                guard bounds.allows(picked.count) else {
                    throw refusal(
                        relationship,
                        "not enough \(relationship.destinationEntity.name) objects under the maximum "
                            + "of \(relationship.inverse.map { "\($0.entity.name).\($0.name)" } ?? "")")
                }
            }
            for target in picked { held[target, default: 0] += 1 }
            chosen.append(picked)
        }
        if let inverse = relationship.inverse, let inverseBounds {
            // Destinations under the inverse's minimum take more sources that have room.
            for target in targets where !inverseBounds.allows(held[target, default: 0]) {
                for (position, _) in sources.enumerated() where !inverseBounds.allows(held[target, default: 0]) {
                    guard chosen[position].count < bounds.most, !chosen[position].contains(target) else { continue }
                    chosen[position].append(target)
                    held[target, default: 0] += 1
                }
                guard inverseBounds.allows(held[target, default: 0]) else {
                    throw refusal(
                        inverse,
                        "each object needs at least \(inverseBounds.least) \(inverse.destinationEntity.name) "
                            + "object(s), but only \(held[target, default: 0]) can be given")
                }
            }
        }
        return Links(relationship: relationship, pairs: zip(sources, chosen).filter { !$0.1.isEmpty }.map { ($0, $1) })
    }
}
