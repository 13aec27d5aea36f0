import Foundation
import LabCore
import ObjectStack
import Synchronization

/// Inserts new objects of a model file's entity beside a seeded population, as an app's "new" button would, so a
/// workload's inserts keep every rule the model sets.
///
/// Values follow the generator's rules (`AttributeValueGenerator`: type, optionality, defaults, bounds, regular
/// expressions), numbered on from the plan's objects, so a value under a uniqueness constraint never repeats the
/// seeded store's or another insert's. Every required relationship is filled:
/// - a required to-one whose inverse is a to-many (or absent), and a required to-many whose inverse is a to-many
///   (or absent), with existing objects whose inverse still has room under its maximum;
/// - a required to-many whose inverse is a to-one (children the new object owns) and a required one-to-one with
///   new objects, made the same way, since taking existing ones would leave their old owner short;
/// - with new objects too when too few existing ones have room.
///
/// For example:
/// ```swift
/// let inserter = try ModelObjectInserter(plan: plan, entity: "Mood", seed: 2)
/// try context.performAndWait { _ = try inserter.insert(3, into: context); try context.save() }
/// ```
/// - Note: Thread-safe: writers on several contexts share one inserter (the numbering and draws are behind a
///   lock); each insert runs on the calling context's queue.
final class ModelObjectInserter: Sendable {
    /// The concrete entity inserted; nil when the entity (and its sub-entities) are all abstract.
    let entityName: String?
    /// How many objects of one required chain are made at most, so a model whose required relationships form a
    /// loop of new objects is refused instead of recursing for ever.
    static let maximumDepth = 8

    private let model: ManagedObjectModel
    private let state: Mutex<State>

    /// Prepares inserts of `entity` (a concrete entity of it with planned objects, else its first concrete one)
    /// beside `plan`'s objects; `seed` should differ from the plan's.
    /// - Throws: `LabError.invalidScenario` for an entity the model lacks; `PopulationRefusal` for an attribute
    ///   the generator cannot satisfy.
    init(plan: PopulationPlan, entity name: String, seed: UInt64) throws {
        guard let entity = plan.model.entitiesByName[name] else {
            throw LabError(.invalidScenario, "inserts of \(name): the model has no such entity")
        }
        model = plan.model
        let family = entity.selfAndDescendants
        let planned = plan.entities.first { entry in entry.count > 0 && family.contains { $0 === entry.entity } }
        entityName = planned?.entity.name ?? entity.selfAndDescendants.first { !$0.isAbstract }?.name
        state = Mutex(try State(plan: plan, seed: seed))
    }

    /// Inserts `count` new objects (and what they require) into `context`; call on its queue. Returns how many
    /// were made: fewer when a uniquely constrained attribute has run out of values within its bounds.
    /// - Throws: `LabError.unsupported` for a chain of required new objects deeper than `maximumDepth`; what
    ///   setting a value throws.
    func insert(_ count: Int, into context: ManagedObjectContext) throws -> Int {
        guard let entityName, let entity = model.entitiesByName[entityName] else { return 0 }
        var made = 0
        let candidates = Candidates()
        while made < count {
            var created: [ManagedObject] = []
            guard
                try make(entity, owner: nil, in: context, depth: 0, created: &created, candidates: candidates) != nil
            else {
                // An object of the chain ran out of unique values: drop the whole chain, unsaved.
                for object in created.reversed() { context.delete(object) }
                break
            }
            made += 1
        }
        return made
    }

    /// Makes one object of `entity`, linked to `owner` through its relationship when given, and whatever it
    /// requires; nil when a unique attribute has no value left.
    private func make(
        _ entity: EntityDescription, owner: (object: ManagedObject, relationship: RelationshipDescription)?,
        in context: ManagedObjectContext, depth: Int, created: inout [ManagedObject], candidates: Candidates
    ) throws -> ManagedObject? {
        guard depth < Self.maximumDepth else {
            throw LabError(
                .unsupported,
                "a new \(entityName ?? entity.name) needs a chain of more than \(Self.maximumDepth) new objects through "
                    + "required relationships (at \(entity.name)); the model's required relationships form a loop")
        }
        guard let values = try state.withLock({ try $0.values(of: entity) }) else { return nil }
        let object = try context.insertNewObject(forEntityName: entity.name)
        created.append(object)
        for (name, value) in values { try object.setGeneratedValue(value, forKey: name) }
        if let owner { try Self.link(owner.object, owner.relationship, to: object) }
        for relationship in entity.relationships where !relationship.isTransient {
            let least = relationship.isToMany ? ChildBounds(relationship).least : (relationship.isOptional ? 0 : 1)
            let missing = least - object.relatedObjects(relationship).count
            guard missing > 0 else { continue }
            // Children it owns and a one-to-one partner are made new: an existing one would leave its owner short.
            let makesNew = relationship.inverse.map { !$0.isToMany } ?? false
            var targets: [ManagedObject] = []
            if !makesNew {
                targets = try existing(
                    relationship, count: missing, besides: object, in: context, candidates: candidates)
                for target in targets { try Self.link(object, relationship, to: target) }
            }
            for _ in targets.count..<missing {
                let destination = concrete(relationship.destinationEntity)
                guard
                    try make(
                        destination, owner: (object, relationship), in: context, depth: depth + 1, created: &created,
                        candidates: candidates) != nil
                else { return nil }
            }
        }
        return object
    }

    /// Up to `count` existing objects for `relationship` of `object`, each with room on the inverse side, from
    /// the candidates one `insert` call fetched for the relationship (one fetch per call, not per object).
    private func existing(
        _ relationship: RelationshipDescription, count: Int, besides object: ManagedObject,
        in context: ManagedObjectContext, candidates: Candidates
    ) throws -> [ManagedObject] {
        let key = ObjectIdentifier(relationship)
        if candidates.pools[key] == nil {
            let destination = relationship.destinationEntity.name
            let total = try context.count(for: FetchRequest<ManagedObject>(entityName: destination))
            var pool: [ManagedObject] = []
            if total > 0 {
                let limit = min(total, 64)
                let start = state.withLock { $0.cursor(destination, count: limit) } % total
                for (offset, wanted) in [(start, limit), (0, max(0, limit - (total - start)))] where wanted > 0 {
                    var request = FetchRequest<ManagedObject>(entityName: destination)
                    request.fetchOffset = offset
                    request.fetchLimit = wanted
                    pool += try context.fetch(request)
                }
            }
            candidates.pools[key] = (pool, 0)
        }
        let (pool, next) = candidates.pools[key]!
        var found: [ManagedObject] = []
        var tried = 0
        while found.count < count, tried < pool.count {
            let candidate = pool[(next + tried) % pool.count]
            tried += 1
            guard candidate !== object, !candidate.isDeleted, !found.contains(where: { $0 === candidate }) else {
                continue
            }
            if let inverse = relationship.inverse, inverse.isToMany, inverse.maxCount > 0,
                candidate.relatedObjects(inverse).count >= inverse.maxCount
            {
                continue
            }
            found.append(candidate)
        }
        candidates.pools[key] = (pool, pool.isEmpty ? 0 : (next + tried) % pool.count)
        return found
    }

    /// `entity` if concrete, else its first concrete sub-entity.
    private func concrete(_ entity: EntityDescription) -> EntityDescription {
        entity.isAbstract ? entity.selfAndDescendants.first { !$0.isAbstract } ?? entity : entity
    }

    /// Sets `target` as (or adds it to) `object`'s relationship; the inverse follows.
    private static func link(
        _ object: ManagedObject, _ relationship: RelationshipDescription, to target: ManagedObject
    ) throws {
        if relationship.isToMany {
            object.addObject(target, toRelationship: relationship.name)
        } else {
            try object.setValue(target, forKey: relationship.name)
        }
    }

}

extension ModelObjectInserter {
    /// Existing objects one `insert` call links new objects to, per relationship, and where it is in each list.
    private final class Candidates {
        var pools: [ObjectIdentifier: (objects: [ManagedObject], next: Int)] = [:]
    }

    /// The numbering and the draws: per concrete entity its value generators, per hierarchy the next index.
    private struct State: @unchecked Sendable {
        // @unchecked: only reached through the inserter's mutex.
        struct Maker {
            var attributes: [AttributeDescription]
            var generators: [AttributeValueGenerator?]
            var streams: [SplitMix64]
            var unique: [Bool]
        }

        let plan: PopulationPlan
        let seed: UInt64
        var makers: [String: Maker] = [:]
        /// The next index of each hierarchy (by root entity name): the plan's objects come first.
        var next: [String: Int] = [:]
        var cursors: [String: Int] = [:]
        var exhausted = false

        init(plan: PopulationPlan, seed: UInt64) throws {
            self.plan = plan
            self.seed = seed
            for entity in plan.entities { next[entity.entity.rootEntity.name, default: 0] += entity.count }
        }

        /// Values for the next object of `entity`, by attribute name; nil once a unique attribute has no value
        /// left within its bounds.
        mutating func values(of entity: EntityDescription) throws -> [(String, AttributeValueGenerator.Value?)]? {
            guard !exhausted else { return nil }
            // Taken out while drawing, so its generators' sets are mutated in place, not copied.
            var maker = try makers.removeValue(forKey: entity.name) ?? self.maker(entity)
            defer { makers[entity.name] = maker }
            let root = entity.rootEntity.name
            let index = next[root, default: 0]
            var values: [(String, AttributeValueGenerator.Value?)] = []
            for column in maker.attributes.indices {
                let value = try maker.generators[column]?.value(index: index, using: &maker.streams[column])
                if maker.unique[column], let generator = maker.generators[column] {
                    switch value {
                    case .store(let stored)? where generator.fits(stored): break
                    // A transformable value is distinct by its index: it never runs out.
                    case .transformable?: break
                    default:
                        exhausted = true
                        return nil
                    }
                }
                values.append((maker.attributes[column].name, value))
            }
            next[root] = index + 1
            return values
        }

        /// Where the next search for existing objects of an entity starts, moving on by `count` each time.
        mutating func cursor(_ entity: String, count: Int) -> Int {
            defer { cursors[entity, default: 0] += max(count, 1) * 7 }
            return cursors[entity, default: 0]
        }

        /// The generators of `entity`'s attributes, as the plan made them (same hierarchy size, so unique
        /// values continue its numbering), their draws seeded apart from the plan's.
        private func maker(_ entity: EntityDescription) throws -> Maker {
            let attributes = entity.attributes.filter { !$0.isTransient && $0.derivationExpression == nil }
            let hierarchy = next[entity.rootEntity.name] ?? 0
            let unique = try PopulationPlan.uniqueAttributes(of: entity, count: hierarchy)
            let peers = plan.entities.filter { $0.entity.rootEntity === entity.rootEntity }
            var generators: [AttributeValueGenerator?] = []
            for attribute in attributes {
                var generator = try AttributeValueGenerator(
                    entityName: entity.name, attribute: attribute, unique: unique.contains(attribute.name),
                    count: hierarchy, spec: plan.spec)
                if unique.contains(attribute.name) {
                    for peer in peers {
                        guard let column = peer.attributes.firstIndex(where: { $0.name == attribute.name }) else {
                            continue
                        }
                        let width = peer.attributes.count
                        generator.exclude((0..<peer.count).lazy.map { peer.values[$0 * width + column] })
                    }
                }
                generators.append(generator)
            }
            return Maker(
                attributes: attributes, generators: generators,
                streams: attributes.map {
                    SplitMix64(seed: PopulationPlan.streamSeed(seed, "I:\(entity.name).\($0.name)"))
                },
                unique: attributes.map { unique.contains($0.name) })
        }
    }
}
