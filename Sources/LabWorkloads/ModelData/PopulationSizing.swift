import Foundation
import ObjectStack

/// Sizes a population so every relationship `RelationshipWiring` wires can be satisfied, before anything is
/// planned: `PopulationCounts` gives the counts the spec asks for, then each relationship's count rules are checked
/// and an entity that is too small is raised (its owned entities grow with it), until every rule holds.
///
/// The rules, per relationship (pools are the concrete entities each side reaches):
/// - one-to-many: every owner holds at least the to-many's minimum (so children ≥ owners × minimum); every child of
///   a required to-one has an owner (owners ≥ children ÷ maximum; with a fixed count, children a multiple of it);
/// - one-to-one: a required side needs a partner of its own on the other (both required: as many on each side);
/// - to-many without a to-one inverse (many-to-many, or no inverse): enough destinations for one source's minimum,
///   enough sources for one destination's minimum, and room under each side's maximum for the other's minimums;
/// - a required to-one without inverse: at least one destination.
///
/// An entity whose count the user gave (`population:`) is never changed: when it is the one too small, the sizing
/// throws a `PopulationRefusal` naming that `population:` key and the count that would satisfy every rule.
///
/// For example:
/// ```swift
/// let counts = try PopulationSizing.counts(model: model, spec: PopulationSpec(rootCount: 100))
/// print(counts.byEntity, counts.reasons)   // ["User": 220, …], ["User": "root, raised to 220 for Account.user …"]
/// ```
enum PopulationSizing {
    /// How many times the counts may be raised before the model is declared unsatisfiable (required relationships
    /// that each ask the other side for more, for ever).
    static let maximumRounds = 500
    /// The most objects sizing gives one entity.
    static let maximumObjects = 10_000_000

    /// An entity pool that must hold more objects.
    struct Shortfall {
        /// The concrete entities of the pool.
        let pool: [EntityDescription]
        /// The fewest objects it must hold.
        let atLeast: Int
        /// The relationship that asks for them.
        let relationship: RelationshipDescription
        /// Why, for reasons and errors (`a required one-to-one: one User per Account`).
        let why: String
    }

    /// The counts of `model` under `spec`, raised where a relationship needs more objects.
    /// - Throws: `PopulationRefusal` (with `populationKey`) when a count the spec gives is too small; when the
    ///   required relationships ask for ever more objects.
    static func counts(model: ManagedObjectModel, spec: PopulationSpec) throws -> PopulationCounts {
        switch try size(model: model, spec: spec) {
        case .sized(let counts): return counts
        case .blocked(let shortfall, let current, let key):
            throw refusal(shortfall, current: current, key: key, model: model, spec: spec)
        }
    }

    /// What sizing comes to: counts that satisfy every rule, or a shortfall only a given count could fill.
    private enum Outcome {
        case sized(PopulationCounts)
        /// The pool short of objects, its size, and the given entity (its `population:` key) that would grow.
        case blocked(Shortfall, current: Int, key: EntityDescription)
    }

    private static func size(model: ManagedObjectModel, spec: PopulationSpec) throws -> Outcome {
        var floors: [String: Int] = [:]
        var raisedBecause: [String: String] = [:]
        for _ in 0..<maximumRounds {
            let counts = PopulationCounts(model: model, spec: spec, floors: floors, raisedBecause: raisedBecause)
            guard let shortfall = firstShortfall(model, counts.byEntity) else { return .sized(counts) }
            let current = total(shortfall.pool, counts.byEntity)
            func largest(_ entities: [EntityDescription]) -> EntityDescription? {
                entities.max { counts.byEntity[$0.name, default: 0] < counts.byEntity[$1.name, default: 0] }
            }
            guard let largestGiven = largest(shortfall.pool) else {
                throw PopulationRefusal(
                    entity: shortfall.relationship.entity.name, property: shortfall.relationship.name,
                    "\(shortfall.why), but no concrete entity can make those objects")
            }
            // The largest entity not given grows, so a hierarchy keeps its proportions as far as it can.
            guard let grown = largest(shortfall.pool.filter { spec.counts[$0.name] == nil }) else {
                return .blocked(shortfall, current: current, key: largestGiven)
            }
            let target = counts.byEntity[grown.name, default: 0] + shortfall.atLeast - current
            guard target <= maximumObjects else {
                throw PopulationRefusal(
                    entity: shortfall.relationship.entity.name, property: shortfall.relationship.name,
                    "\(shortfall.why): \(grown.name) would need \(target) objects, more than the generator makes "
                        + "(\(maximumObjects)); the model's required relationships ask each other for ever more objects"
                )
            }
            floors[grown.name] = target
            raisedBecause[grown.name] = shortfall.why
        }
        throw PopulationRefusal(
            entity: model.entities.first?.name ?? "?",
            "the model's required relationships still ask for more objects after \(maximumRounds) rounds of sizing")
    }

    /// The refusal for a shortfall only a given count could fill: it names that `population:` key and the smallest
    /// count for it with which every rule holds (found by trying it, since a larger count may need more elsewhere).
    private static func refusal(
        _ shortfall: Shortfall, current: Int, key: EntityDescription, model: ManagedObjectModel, spec: PopulationSpec
    ) -> PopulationRefusal {
        let count = spec.counts[key.name]!
        let was = count.objects(rootCount: spec.rootCount)
        var needed = was + shortfall.atLeast - current
        for _ in 0..<20 {
            var trial = spec
            trial.counts[key.name] = .objects(needed)
            guard case .blocked(let next, let nextCurrent, let nextKey)? = try? size(model: model, spec: trial),
                nextKey === key
            else { break }
            needed += next.atLeast - nextCurrent
        }
        let pool =
            shortfall.pool.count == 1
            ? "\(key.name) needs" : "\(shortfall.pool.map(\.name).joined(separator: " and ")) together need"
        var fix = "set \(key.name): \(needed)"
        if case .ratio = count, spec.rootCount > 0 {
            fix += " (or a ratio of at least \(ceilRatio(needed, spec.rootCount)))"
        }
        return PopulationRefusal(
            entity: shortfall.relationship.entity.name, property: shortfall.relationship.name, populationKey: key.name,
            "population \(key.name): \(count) gives \(was) \(key.name) objects, too few: \(shortfall.why), so \(pool) "
                + "at least \(shortfall.atLeast); \(fix), or leave \(key.name) out and the generator sizes it")
    }

    private static func ceilRatio(_ needed: Int, _ root: Int) -> Double {
        (Double(needed) / Double(root) * 100).rounded(.up) / 100
    }

    private static func total(_ pool: [EntityDescription], _ counts: [String: Int]) -> Int {
        pool.reduce(0) { $0 + counts[$1.name, default: 0] }
    }

    // MARK: - Rules

    /// The first rule that does not hold, in the order the plan wires relationships; nil when all hold.
    static func firstShortfall(_ model: ManagedObjectModel, _ counts: [String: Int]) -> Shortfall? {
        var wired: Set<ObjectIdentifier> = []
        for entity in model.entities {
            for relationship in entity.declaredRelationships where !relationship.isTransient {
                if let inverse = relationship.inverse, wired.contains(ObjectIdentifier(inverse)) { continue }
                wired.insert(ObjectIdentifier(relationship))
                if let shortfall = shortfall(relationship, counts) { return shortfall }
            }
        }
        return nil
    }

    /// The pool of concrete entities that are kinds of both `a` and `b`, and its size.
    private static func pool(_ a: EntityDescription, _ b: EntityDescription, _ counts: [String: Int])
        -> (entities: [EntityDescription], count: Int)
    {
        let entities = PopulationCounts.concrete(kindOf: a, and: b)
        return (entities, total(entities, counts))
    }

    /// What `relationship` (with its inverse) needs that the counts do not give, nil when they suffice.
    private static func shortfall(_ relationship: RelationshipDescription, _ counts: [String: Int]) -> Shortfall? {
        let inverse = relationship.inverse
        let sources = pool(relationship.entity, inverse?.destinationEntity ?? relationship.entity, counts)
        let targets = pool(relationship.destinationEntity, inverse?.entity ?? relationship.destinationEntity, counts)
        switch (relationship.isToMany, inverse?.isToMany) {
        case (true, false?):
            return oneToMany(owner: relationship, owners: sources, children: targets)
        case (false, true?):
            return oneToMany(owner: inverse!, owners: targets, children: sources)
        case (false, false?):
            return oneToOne(relationship, sources, targets)
        case (true, _):
            return toMany(relationship, sources, targets)
        case (false, nil):
            guard !relationship.isOptional, sources.count > 0, targets.count == 0 else { return nil }
            return Shortfall(
                pool: targets.entities, atLeast: 1, relationship: relationship,
                why:
                    "\(name(relationship)) is required, so it needs a \(relationship.destinationEntity.name) to point at"
            )
        }
    }

    private static func name(_ relationship: RelationshipDescription) -> String {
        "\(relationship.entity.name).\(relationship.name)"
    }

    private static func ceilDivide(_ a: Int, _ b: Int) -> Int { (a + b - 1) / b }

    private static func oneToMany(
        owner: RelationshipDescription, owners: (entities: [EntityDescription], count: Int),
        children: (entities: [EntityDescription], count: Int)
    ) -> Shortfall? {
        let child = owner.inverse!
        let bounds = ChildBounds(owner)
        let kind = child.entity.name
        if bounds.least > 0, children.count < owners.count * bounds.least {
            return Shortfall(
                pool: children.entities, atLeast: owners.count * bounds.least, relationship: owner,
                why:
                    "each of the \(owners.count) \(owner.entity.name) objects holds at least \(bounds.least) \(kind) of its own "
                    + "in \(name(owner))")
        }
        if children.count > 0, children.count < bounds.leastWhenFilled, owners.count > 0 {
            return Shortfall(
                pool: children.entities, atLeast: bounds.leastWhenFilled, relationship: owner,
                why: "\(name(owner)) holds none or at least \(bounds.leastWhenFilled) \(kind)")
        }
        guard !child.isOptional, children.count > 0 else { return nil }
        if bounds.most == .max {
            guard owners.count == 0 else { return nil }
            return Shortfall(
                pool: owners.entities, atLeast: 1, relationship: owner,
                why:
                    "\(name(child)) is required, so the \(children.count) \(kind) need a \(owner.entity.name) to own them"
            )
        }
        if children.count > owners.count * bounds.most {
            return Shortfall(
                pool: owners.entities, atLeast: ceilDivide(children.count, bounds.most), relationship: owner,
                why: "\(name(child)) is required and \(name(owner)) holds at most \(bounds.most), so the "
                    + "\(children.count) \(kind) need \(ceilDivide(children.count, bounds.most)) owners")
        }
        if bounds.leastWhenFilled == bounds.most, children.count % bounds.most != 0 {
            return Shortfall(
                pool: children.entities, atLeast: ceilDivide(children.count, bounds.most) * bounds.most,
                relationship: owner,
                why: "\(name(child)) is required and \(name(owner)) holds exactly \(bounds.most) when it holds any, "
                    + "so the \(kind) come in \(bounds.most)s")
        }
        return nil
    }

    private static func oneToOne(
        _ relationship: RelationshipDescription, _ sources: (entities: [EntityDescription], count: Int),
        _ targets: (entities: [EntityDescription], count: Int)
    ) -> Shortfall? {
        let inverse = relationship.inverse!
        if !relationship.isOptional, targets.count < sources.count {
            return Shortfall(
                pool: targets.entities, atLeast: sources.count, relationship: relationship,
                why: "\(name(relationship)) is a required one-to-one, so each of the \(sources.count) "
                    + "\(relationship.entity.name) objects needs a \(relationship.destinationEntity.name) of its own")
        }
        if !inverse.isOptional, sources.count < targets.count {
            return Shortfall(
                pool: sources.entities, atLeast: targets.count, relationship: inverse,
                why: "\(name(inverse)) is a required one-to-one, so each of the \(targets.count) "
                    + "\(inverse.entity.name) objects needs a \(inverse.destinationEntity.name) of its own")
        }
        return nil
    }

    private static func toMany(
        _ relationship: RelationshipDescription, _ sources: (entities: [EntityDescription], count: Int),
        _ targets: (entities: [EntityDescription], count: Int)
    ) -> Shortfall? {
        let bounds = ChildBounds(relationship)
        let destination = relationship.destinationEntity.name
        if sources.count > 0, bounds.least > 0 || targets.count > 0, targets.count < bounds.leastWhenFilled {
            return Shortfall(
                pool: targets.entities, atLeast: bounds.leastWhenFilled, relationship: relationship,
                why: "\(name(relationship)) holds \(bounds.least > 0 ? "" : "none or ")at least "
                    + "\(bounds.leastWhenFilled) distinct \(destination)")
        }
        guard let inverse = relationship.inverse else { return nil }
        let inverseBounds = ChildBounds(inverse)
        if targets.count > 0, inverseBounds.least > 0 || sources.count > 0,
            sources.count < inverseBounds.leastWhenFilled
        {
            return Shortfall(
                pool: sources.entities, atLeast: inverseBounds.leastWhenFilled, relationship: inverse,
                why: "\(name(inverse)) holds \(inverseBounds.least > 0 ? "" : "none or ")at least "
                    + "\(inverseBounds.leastWhenFilled) distinct \(inverse.destinationEntity.name)")
        }
        if inverseBounds.most != .max, sources.count * bounds.least > targets.count * inverseBounds.most {
            let needed = ceilDivide(sources.count * bounds.least, inverseBounds.most)
            return Shortfall(
                pool: targets.entities, atLeast: needed, relationship: relationship,
                why: "the \(sources.count) \(name(relationship)) hold at least \(bounds.least) each and "
                    + "\(name(inverse)) at most \(inverseBounds.most)")
        }
        if bounds.most != .max, targets.count * inverseBounds.least > sources.count * bounds.most {
            let needed = ceilDivide(targets.count * inverseBounds.least, bounds.most)
            return Shortfall(
                pool: sources.entities, atLeast: needed, relationship: inverse,
                why: "the \(targets.count) \(name(inverse)) hold at least \(inverseBounds.least) each and "
                    + "\(name(relationship)) at most \(bounds.most)")
        }
        return nil
    }
}
