import Foundation

/// A managed object model: the entities of a data model, resolved and checked.
///
/// For example:
/// ```swift
/// let model = try ManagedObjectModel(entities: [author, book])
/// ```
/// Building the model resolves inheritance, relationship destinations and inverses, converts default
/// values, and computes each entity's version hash. A model that does not hold together (a relationship
/// to an unknown entity, a one-sided inverse, a constraint on an unknown attribute) throws an error
/// that names the culprit.
/// - Note: Immutable once built; safe to share between threads and coordinators. Its descriptions refer
///   to each other, so a model lives as long as any of its entities is referenced.
public final class ManagedObjectModel: Sendable {
    /// Every entity, in the order given.
    public let entities: [EntityDescription]
    /// Entities by name.
    public let entitiesByName: [String: EntityDescription]
    /// Named subsets of the entities, for stores that hold part of a model.
    public let configurations: [String: [String]]
    /// Each entity's version hash by entity name: what a store records and compares.
    public let entityVersionHashesByName: [String: String]
    /// Named fetch requests stored with the model, by name (see `fetchRequestFromTemplate(withName:substitutionVariables:)`).
    public let fetchRequestTemplatesByName: [String: FetchRequestTemplate]
    /// Whether any entity has a relationship: only then can a saved object's values name another object's ID.
    let hasRelationships: Bool
    /// Whether any entity has a derived attribute, which a save computes.
    let hasDerivedAttributes: Bool

    /// Builds and checks a model.
    /// - Throws: `ObjectStackError` with code `.invalidModel` naming the entity and property at fault.
    public init(
        entities: [EntityDescription], configurations: [String: [String]] = [:],
        fetchRequestTemplates: [FetchRequestTemplate] = []
    ) throws {
        var byName: [String: EntityDescription] = [:]
        for (position, entity) in entities.enumerated() {
            guard entity.modelIndex < 0 else {
                throw ObjectStackError.invalidModel("entity \(entity.name) already belongs to another model")
            }
            guard byName[entity.name] == nil else {
                throw ObjectStackError.invalidModel("entity \(entity.name) is declared twice")
            }
            entity.modelIndex = position
            byName[entity.name] = entity
        }
        for (name, members) in configurations {
            for member in members where byName[member] == nil {
                throw ObjectStackError.invalidModel("configuration \(name) names unknown entity \(member)")
            }
        }
        var templates: [String: FetchRequestTemplate] = [:]
        for template in fetchRequestTemplates {
            guard byName[template.entityName] != nil else {
                throw ObjectStackError.invalidModel(
                    "fetch request template \(template.name) names unknown entity \(template.entityName)")
            }
            guard templates.updateValue(template, forKey: template.name) == nil else {
                throw ObjectStackError.invalidModel("fetch request template \(template.name) is declared twice")
            }
        }
        for entity in entities {
            for property in entity.fetchedProperties where byName[property.destinationName] == nil {
                throw ObjectStackError.invalidModel(
                    "fetched property \(entity.name).\(property.name) names unknown entity \(property.destinationName)")
            }
        }
        self.entities = entities
        self.entitiesByName = byName
        self.configurations = configurations
        self.fetchRequestTemplatesByName = templates
        try Self.resolveInheritance(entities, byName: byName)
        for entity in Self.parentsFirst(entities) { try Self.resolveProperties(of: entity) }
        try Self.resolveRelationships(entities, byName: byName)
        // Parents first: a sub-entity inherits the constraints its parent has resolved (Continent before its
        // parent GeographicRegion in Moody 3 used to inherit none).
        for entity in Self.parentsFirst(entities) { try Self.resolveConstraints(of: entity) }
        for entity in entities { try Self.resolveDerivations(of: entity) }
        for entity in entities {
            entity.requiredAttributes = entity.attributes.filter { !$0.isOptional && !$0.isTransient }
            entity.constrainedAttributes = entity.attributes.filter(\.hasValueConstraints)
            entity.derivedAttributes = entity.attributes.filter { $0.derivation != nil }
            entity.defaultedAttributes = entity.attributes.filter {
                !$0.defaultValue.isNull && $0.derivationExpression == nil
            }
        }
        for entity in entities {
            entity.versionHash = Self.versionHash(of: entity)
            entity.structuralVersionHash = Self.structuralVersionHash(of: entity)
        }
        self.entityVersionHashesByName = byName.mapValues(\.versionHash)
        hasRelationships = entities.contains { !$0.relationships.isEmpty }
        hasDerivedAttributes = entities.contains { !$0.derivedAttributes.isEmpty }
    }

    /// The entity whose objects are instances of `type` (the most specific match).
    public func entity(for type: ManagedObject.Type) -> EntityDescription? {
        entities.first { $0.managedObjectClass == type }
    }

    /// A request built from a stored template, its `$VARIABLES` replaced by the given values.
    /// - Throws: `ObjectStackError` `.invalidArgument` for an unknown template, a variable without a value, or a
    ///   `Result` that does not match the template's result type.
    public func fetchRequestFromTemplate<Result: FetchRequestResult>(
        withName name: String, substitutionVariables: [String: Any] = [:]
    ) throws -> FetchRequest<Result> {
        guard let template = fetchRequestTemplatesByName[name] else {
            throw ObjectStackError(
                code: .invalidArgument, message: "the model has no fetch request template named \(name)")
        }
        return try template.fetchRequest(substitutionVariables: substitutionVariables)
    }

    /// The entities of a configuration, or every entity for `nil` or an unknown name.
    public func entities(forConfiguration name: String?) -> [EntityDescription] {
        guard let name, let members = configurations[name] else { return entities }
        return members.compactMap { entitiesByName[$0] }
    }

    // MARK: - Resolution

    private static func resolveInheritance(_ entities: [EntityDescription], byName: [String: EntityDescription]) throws
    {
        for entity in entities {
            guard let parentName = entity.parentName else { continue }
            guard let parent = byName[parentName] else {
                throw ObjectStackError.invalidModel("entity \(entity.name) names unknown parent entity \(parentName)")
            }
            entity.superentity = parent
            parent.subentities.append(entity)
        }
        for entity in entities {
            var seen: Set<ObjectIdentifier> = []
            var current: EntityDescription? = entity
            while let candidate = current {
                guard seen.insert(ObjectIdentifier(candidate)).inserted else {
                    throw ObjectStackError.invalidModel("entity \(entity.name) inherits from itself")
                }
                current = candidate.superentity
            }
        }
    }

    private static func parentsFirst(_ entities: [EntityDescription]) -> [EntityDescription] {
        entities.filter { $0.superentity == nil }.flatMap(\.selfAndDescendants)
    }

    private static func resolveProperties(of entity: EntityDescription) throws {
        let parent = entity.superentity
        var attributes = parent?.attributes ?? []
        var relationships = parent?.relationships ?? []
        var names = Set(attributes.map(\.name) + relationships.map(\.name))
        for attribute in entity.declaredAttributes {
            guard names.insert(attribute.name).inserted else {
                throw ObjectStackError.invalidModel("entity \(entity.name) declares property \(attribute.name) twice")
            }
            guard attribute.index < 0 else {
                throw ObjectStackError.invalidModel(
                    "attribute \(entity.name).\(attribute.name) belongs to another entity")
            }
            try attribute.resolveDefault(entityName: entity.name)
            if attribute.type == .transformable, attribute.valueTransformerName == nil {
                throw ObjectStackError.invalidModel(
                    "transformable attribute \(entity.name).\(attribute.name) names no value transformer")
            }
            attributes.append(attribute)
        }
        var composites = parent?.compositeAttributesByName ?? [:]
        for composite in entity.compositeAttributes {
            guard names.insert(composite.name).inserted, composites[composite.name] == nil else {
                throw ObjectStackError.invalidModel("entity \(entity.name) declares property \(composite.name) twice")
            }
            composites[composite.name] = composite
        }
        entity.compositeAttributesByName = composites
        for relationship in entity.declaredRelationships {
            guard names.insert(relationship.name).inserted else {
                throw ObjectStackError.invalidModel(
                    "entity \(entity.name) declares property \(relationship.name) twice")
            }
            relationship.entity = entity
            relationships.append(relationship)
        }
        // Inherited properties keep their indexes: the parent's come first, so an index means the same
        // property in every entity of a hierarchy and a parent's bound predicate works on its sub-entities.
        var properties = parent?.properties ?? []
        for attribute in entity.declaredAttributes {
            attribute.index = properties.count
            properties.append(.attribute(attribute))
        }
        for relationship in entity.declaredRelationships {
            relationship.index = properties.count
            properties.append(.relationship(relationship))
        }
        entity.properties = properties
        entity.attributes = attributes
        entity.relationships = relationships
        entity.attributesByName = Dictionary(uniqueKeysWithValues: attributes.map { ($0.name, $0) })
        entity.relationshipsByName = Dictionary(uniqueKeysWithValues: relationships.map { ($0.name, $0) })
        var stored: [StoredProperty] = parent?.storedProperties ?? []
        for attribute in entity.declaredAttributes where !attribute.isTransient {
            attribute.storedIndex = stored.count
            stored.append(.attribute(attribute))
        }
        for relationship in entity.declaredRelationships where !relationship.isToMany && !relationship.isTransient {
            relationship.storedIndex = stored.count
            stored.append(.toOne(relationship))
        }
        entity.storedProperties = stored
        // After the stored indexes: a slot copies them.
        entity.attributeSlots = attributes.map { (NameBits($0.name), AttributeSlot($0)) }
    }

    private static func resolveRelationships(_ entities: [EntityDescription], byName: [String: EntityDescription])
        throws
    {
        for entity in entities {
            for relationship in entity.declaredRelationships {
                guard let destination = byName[relationship.destinationName] else {
                    throw ObjectStackError.invalidModel(
                        "relationship \(entity.name).\(relationship.name) names unknown destination entity \(relationship.destinationName)"
                    )
                }
                relationship.destinationEntity = destination
            }
        }
        for entity in entities {
            for relationship in entity.declaredRelationships {
                guard let inverseName = relationship.inverseName else { continue }
                let destination: EntityDescription = relationship.destinationEntity
                let culprit = "relationship \(entity.name).\(relationship.name)"
                guard let inverse = destination.relationshipsByName[inverseName] else {
                    throw ObjectStackError.invalidModel(
                        "\(culprit) names unknown inverse \(destination.name).\(inverseName)")
                }
                guard inverse.inverseName == relationship.name, entity.isKind(of: inverse.destinationEntity) else {
                    throw ObjectStackError.invalidModel(
                        "\(culprit) has inverse \(destination.name).\(inverseName), whose inverse is not \(entity.name).\(relationship.name)"
                    )
                }
                relationship.inverse = inverse
            }
        }
    }

    private static func resolveConstraints(of entity: EntityDescription) throws {
        var resolved = entity.superentity?.resolvedUniquenessConstraints ?? []
        for constraint in entity.uniquenessConstraints {
            let attributes = try constraint.map { name in
                guard let attribute = entity.attributesByName[name], !attribute.isTransient else {
                    throw ObjectStackError.invalidModel(
                        "uniqueness constraint \(constraint) of \(entity.name) names \(name), which is not a stored attribute"
                    )
                }
                return attribute
            }
            resolved.append(attributes)
        }
        entity.resolvedUniquenessConstraints = resolved
        entity.applicableUniquenessConstraints =
            entity.uniquenessConstraints.map { names in
                (entity, names.compactMap { entity.attributesByName[$0] })
            } + (entity.superentity?.applicableUniquenessConstraints ?? [])
        // Stored properties are resolved before constraints, and a constrained attribute is stored (checked above).
        entity.applicableUniquenessStoredIndices = entity.applicableUniquenessConstraints.map {
            $0.attributes.compactMap(\.storedIndex)
        }
        for index in entity.indexes {
            for name in index.attributeNames where entity.attributesByName[name] == nil {
                throw ObjectStackError.invalidModel(
                    "index \(index.name) of \(entity.name) names unknown attribute \(name)")
            }
        }
    }

    private static func resolveDerivations(of entity: EntityDescription) throws {
        for attribute in entity.declaredAttributes {
            guard let text = attribute.derivationExpression else { continue }
            let derivation: Derivation
            do {
                derivation = try Derivation.bind(text, of: attribute, entity: entity)
            } catch {
                throw ObjectStackError(
                    code: .invalidModel,
                    message: "derived attribute \(entity.name).\(attribute.name) has an invalid derivation '\(text)'",
                    cause: error)
            }
            try derivation.checkResultType(of: attribute, in: entity)
            attribute.derivation = derivation
        }
    }

    /// The text of Core Data's version-hash inputs (see `EntityDescription.structuralVersionHash`), one line per
    /// element, so that two entities' texts also show where they differ.
    static func structuralVersionHashText(of entity: EntityDescription) -> [String] {
        var lines = [
            "entity \(entity.name) abstract=\(entity.isAbstract) parent=\(entity.superentity?.name ?? "-")"
                + " versionHashModifier=\(entity.versionHashModifier ?? "-")"
        ]
        for attribute in entity.attributes.sorted(by: { $0.name < $1.name }) {
            lines.append(
                "attribute \(entity.name).\(attribute.name) type=\(attribute.type.rawValue)"
                    + " optional=\(attribute.isOptional) transient=\(attribute.isTransient)"
                    + " derived=\(attribute.derivationExpression != nil)"
                    + " versionHashModifier=\(attribute.versionHashModifier ?? "-")")
        }
        for relationship in entity.relationships.sorted(by: { $0.name < $1.name }) {
            lines.append(
                "relationship \(entity.name).\(relationship.name) destination=\(relationship.destinationName)"
                    + " inverse=\(relationship.inverseName ?? "-") toMany=\(relationship.isToMany)"
                    + " ordered=\(relationship.isOrdered) min=\(relationship.minCount) max=\(relationship.maxCount)"
                    + " optional=\(relationship.isOptional) transient=\(relationship.isTransient)"
                    + " versionHashModifier=\(relationship.versionHashModifier ?? "-")")
        }
        for constraint in entity.uniquenessConstraints.map({ $0.joined(separator: ",") }).sorted() {
            lines.append("uniqueness \(entity.name) \(constraint)")
        }
        return lines
    }

    private static func structuralVersionHash(of entity: EntityDescription) -> String {
        StableHash.hex(of: structuralVersionHashText(of: entity).joined(separator: "\n"))
    }

    private static func versionHash(of entity: EntityDescription) -> String {
        var text =
            "E:\(entity.name):\(entity.isAbstract):\(entity.superentity?.name ?? ""):\(entity.versionHashModifier ?? "")"
        for attribute in entity.attributes.sorted(by: { $0.name < $1.name }) { text += "|" + attribute.versionHashText }
        for relationship in entity.relationships.sorted(by: { $0.name < $1.name }) {
            text += "|" + relationship.versionHashText
        }
        // Constraints and indexes shape the store (unique and index tables), so changing them needs a
        // migration too. Core Data hashes uniqueness constraints; indexes are hashed here as well so a
        // lightweight migration builds (or drops) them instead of the store silently lacking one.
        for constraint in entity.uniquenessConstraints { text += "|U:" + constraint.joined(separator: ",") }
        for index in entity.indexes.sorted(by: { $0.name < $1.name }) {
            text += "|I:\(index.name):" + index.attributeNames.joined(separator: ",")
        }
        for attribute in entity.declaredAttributes where attribute.isIndexed { text += "|X:" + attribute.name }
        return StableHash.hex(of: text)
    }
}
