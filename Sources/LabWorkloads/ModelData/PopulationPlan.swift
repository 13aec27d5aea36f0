import Foundation
import ObjectStack

/// Every object the model-driven generator will write, decided before anything is written: per concrete entity
/// its count and each object's attribute values, and per relationship which objects it links.
///
/// For example:
/// ```swift
/// let model = try ManagedObjectModel(contentsOf: URL(fileURLWithPath: "Moody.xcdatamodeld"))
/// let plan = try PopulationPlan(model: model, spec: PopulationSpec(rootCount: 100), seed: 42)
/// for entity in plan.entities { print(entity.entity.name, entity.count) }
/// ```
/// The same model, spec and seed give the same plan, value for value: each attribute and relationship draws
/// from its own `SplitMix64` stream, seeded from the seed and its name. Abstract entities get no objects of
/// their own; the counts are sized first so every required relationship can be wired (`PopulationSizing`). A model
/// the generator cannot satisfy throws `PopulationRefusal` here, naming the entity and property (and the
/// `population:` key when a given count is at fault); nothing has been written then.
public struct PopulationPlan: Sendable {
    /// An object of the plan: its entity's position in `entities` and its position among that entity's objects.
    public struct ObjectRef: Hashable, Sendable {
        public let entity: Int
        public let index: Int
    }

    /// The objects of one concrete entity.
    public struct Entity: Sendable {
        /// The entity.
        public let entity: EntityDescription
        /// How many objects it gets.
        public let count: Int
        /// Why it gets that many (`root`, `given (500)`, `2 per Country.moods`).
        public let reason: String
        /// The attributes set, in `values` order: stored, not derived.
        let attributes: [AttributeDescription]
        /// Row-major values: object `i`'s value of `attributes[j]` is `values[i * attributes.count + j]`; nil
        /// leaves the attribute unset (nil).
        let values: [AttributeValueGenerator.Value?]
    }

    /// The model populated.
    public let model: ManagedObjectModel
    /// The population asked for.
    public let spec: PopulationSpec
    /// The seed.
    public let seed: UInt64
    /// The concrete entities, in model order.
    public let entities: [Entity]
    /// The wired relationships.
    let links: [RelationshipWiring.Links]
    /// What the generator could not do exactly and did instead (an optional attribute left nil, say).
    public let notes: [String]

    /// The number of objects planned.
    public var objectCount: Int { entities.reduce(0) { $0 + $1.count } }
    /// The number of relationship links planned (each pair once).
    public var linkCount: Int { links.reduce(0) { $0 + $1.pairs.reduce(0) { $0 + $1.targets.count } } }

    /// Plans the population of `model`.
    ///
    /// Registers `SecureCodingValueTransformer` under every transformer name of the model that has none registered.
    /// - Throws: `PopulationRefusal` when an attribute or relationship cannot be satisfied.
    public init(model: ManagedObjectModel, spec: PopulationSpec, seed: UInt64) throws {
        self.model = model
        self.spec = spec
        self.seed = seed
        for name in spec.counts.keys.sorted() where model.entitiesByName[name] == nil {
            throw PopulationRefusal(entity: name, "the population names an entity the model does not have")
        }
        for name in spec.counts.keys.sorted() where model.entitiesByName[name]!.isAbstract {
            throw PopulationRefusal(
                entity: name, "the entity is abstract: it has no objects of its own; give its sub-entities counts")
        }
        SecureCodingValueTransformer.registerMissing(for: model)
        let counts = try PopulationSizing.counts(model: model, spec: spec)
        let concrete = model.entities.filter { !$0.isAbstract }
        var position: [ObjectIdentifier: Int] = [:]
        for (index, entity) in concrete.enumerated() { position[ObjectIdentifier(entity)] = index }

        // Each object's position in its hierarchy: what keeps unique values apart across sub-entities.
        var hierarchyOffset: [ObjectIdentifier: Int] = [:]
        var hierarchySize: [ObjectIdentifier: Int] = [:]
        for entity in concrete {
            let root = ObjectIdentifier(entity.rootEntity)
            hierarchyOffset[ObjectIdentifier(entity)] = hierarchySize[root, default: 0]
            hierarchySize[root, default: 0] += counts.byEntity[entity.name] ?? 0
        }

        var notes: [String] = []
        var planned: [Entity] = []
        for entity in concrete {
            let count = counts.byEntity[entity.name] ?? 0
            let attributes = entity.attributes.filter { !$0.isTransient && $0.derivationExpression == nil }
            let unique = try Self.uniqueAttributes(
                of: entity, count: hierarchySize[ObjectIdentifier(entity.rootEntity)] ?? count)
            var generators: [AttributeValueGenerator?] = []
            for attribute in attributes {
                let generator = try AttributeValueGenerator(
                    entityName: entity.name, attribute: attribute, unique: unique.contains(attribute.name),
                    count: hierarchySize[ObjectIdentifier(entity.rootEntity)] ?? count, spec: spec)
                if let note = generator.note { notes.append(note) }
                generators.append(generator)
            }
            var values: [AttributeValueGenerator.Value?] = []
            values.reserveCapacity(count * attributes.count)
            var streams = attributes.map { SplitMix64(seed: Self.streamSeed(seed, "A:\(entity.name).\($0.name)")) }
            let offset = hierarchyOffset[ObjectIdentifier(entity)] ?? 0
            for index in 0..<count {
                for column in attributes.indices {
                    values.append(try generators[column]?.value(index: offset + index, using: &streams[column]))
                }
            }
            planned.append(
                Entity(
                    entity: entity, count: count, reason: counts.reasons[entity.name] ?? "", attributes: attributes,
                    values: values))
        }
        self.entities = planned

        let plannedCounts = planned.map(\.count)
        let pool: (EntityDescription, EntityDescription) -> [ObjectRef] = { a, b in
            PopulationCounts.concrete(kindOf: a, and: b).flatMap { entity -> [ObjectRef] in
                let index = position[ObjectIdentifier(entity)]!
                return (0..<plannedCounts[index]).map { ObjectRef(entity: index, index: $0) }
            }
        }
        let wiring = RelationshipWiring(spec: spec, pool: pool)
        var links: [RelationshipWiring.Links] = []
        var wired: Set<ObjectIdentifier> = []
        for entity in model.entities {
            for relationship in entity.declaredRelationships where !relationship.isTransient {
                if let inverse = relationship.inverse, wired.contains(ObjectIdentifier(inverse)) { continue }
                wired.insert(ObjectIdentifier(relationship))
                var random = SplitMix64(seed: Self.streamSeed(seed, "R:\(entity.name).\(relationship.name)"))
                links.append(try wiring.wire(relationship, using: &random))
            }
        }
        self.links = links
        self.notes = notes
    }

    /// The attributes made distinct for `count` objects of a hierarchy: of each uniqueness constraint that
    /// applies, every attribute whose type and bounds have room for `count` distinct values (a boolean has two);
    /// a compound constraint is then held by any one of them, so an attribute with too little room (a small range)
    /// is left free when another of its constraint has room. A constraint none of whose attributes has room keeps
    /// them all, and the generator refuses the first, saying why.
    static func uniqueAttributes(of entity: EntityDescription, count: Int) throws -> Set<String> {
        var unique: Set<String> = []
        for constraint in entity.applicableUniquenessConstraints {
            // A transformable value is distinct by its index like a string (its transformer archives the difference).
            let roomy = constraint.attributes.filter { $0.type != .boolean && !$0.isTransient }
            guard !roomy.isEmpty else {
                throw PopulationRefusal(
                    entity: entity.name, property: constraint.attributes.map(\.name).joined(separator: ","),
                    "a uniqueness constraint over only booleans cannot hold distinct values for many objects")
            }
            let fitting = roomy.filter { AttributeValueGenerator.capacity(of: $0).map { $0 >= Double(count) } ?? true }
            unique.formUnion((fitting.isEmpty ? roomy : fitting).map(\.name))
        }
        return unique
    }

    /// A stream's seed: the run's seed mixed with a name, FNV-1a, so streams do not depend on model order.
    static func streamSeed(_ seed: UInt64, _ name: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01B3
        }
        return hash ^ (seed &* 0x9E37_79B9_7F4A_7C15)
    }
}
