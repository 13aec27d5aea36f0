/// The changes between one entity of a source model and the destination entity that continues it; the
/// part of `ModelDifference` that looks at properties, indexes and constraints.
struct EntityComparison {
    private(set) var changes: [ModelDifference.Change] = []
    private(set) var reasonsNotLightweight: [String] = []
    /// Destination property name -> source property name, for properties that carry over.
    private(set) var sourcePropertyNames: [String: String] = [:]

    /// Compares `old` (source) with `new` (destination); `matching` tells a renamed destination entity or
    /// relationship from a new one.
    init(old: EntityDescription, new: EntityDescription, matching: ModelMatching) {
        let name = new.name
        let parentChanged: Bool
        switch (old.superentity, new.superentity) {
        case (nil, nil): parentChanged = false
        case (let oldParent?, let newParent?): parentChanged = matching.source(of: newParent) !== oldParent
        default: parentChanged = true
        }
        if parentChanged {
            changes.append(.entityParentChanged(entity: name, from: old.superentity?.name, to: new.superentity?.name))
        }
        if old.isAbstract != new.isAbstract {
            changes.append(.entityAbstractChanged(entity: name, isAbstract: new.isAbstract))
            if new.isAbstract {
                reasonsNotLightweight.append("entity \(name) becomes abstract: its objects would have no entity")
            }
        }
        if old.versionHashModifier != new.versionHashModifier {
            changes.append(.versionHashModifierChanged(entity: name, property: nil))
        }
        compareAttributes(old, new)
        compareRelationships(old, new, matching)
        compareIndexes(old, new)
    }

    // MARK: - Attributes

    private mutating func compareAttributes(_ old: EntityDescription, _ new: EntityDescription) {
        let entity = new.name
        let pairs = ModelDifference.match(
            old.attributes, new.attributes, name: \.name, renamingIdentifier: \.renamingIdentifier)
        for (attribute, source) in pairs {
            guard let source else {
                changes.append(.attributeAdded(entity: entity, attribute: attribute.name))
                if !attribute.isTransient, needsValue(attribute) {
                    reasonsNotLightweight.append(
                        "attribute \(entity).\(attribute.name) is added as required without a default value")
                }
                continue
            }
            sourcePropertyNames[attribute.name] = source.name
            if source.name != attribute.name {
                changes.append(.attributeRenamed(entity: entity, from: source.name, to: attribute.name))
            }
            if source.type != attribute.type {
                changes.append(
                    .attributeTypeChanged(
                        entity: entity, attribute: attribute.name, from: source.type, to: attribute.type))
                reasonsNotLightweight.append(
                    "attribute \(entity).\(attribute.name) changes type from \(source.type.rawValue) to \(attribute.type.rawValue)"
                )
            }
            if source.isTransient != attribute.isTransient {
                changes.append(
                    .attributeTransienceChanged(
                        entity: entity, attribute: attribute.name, isTransient: attribute.isTransient))
                if !attribute.isTransient, needsValue(attribute) {
                    reasonsNotLightweight.append(
                        "attribute \(entity).\(attribute.name) becomes stored and required without a default value")
                }
            }
            if source.isOptional != attribute.isOptional {
                changes.append(
                    .attributeOptionalityChanged(
                        entity: entity, attribute: attribute.name, isOptional: attribute.isOptional))
                if !attribute.isTransient, needsValue(attribute) {
                    reasonsNotLightweight.append(
                        "attribute \(entity).\(attribute.name) becomes required without a default value")
                }
            }
            if source.versionHashModifier != attribute.versionHashModifier {
                changes.append(.versionHashModifierChanged(entity: entity, property: attribute.name))
            }
        }
        let kept = Set(pairs.compactMap { $0.old.map(ObjectIdentifier.init) })
        for attribute in old.attributes where !kept.contains(ObjectIdentifier(attribute)) {
            changes.append(.attributeRemoved(entity: entity, attribute: attribute.name))
        }
    }

    /// Whether existing objects would have no valid value for the attribute.
    private func needsValue(_ attribute: AttributeDescription) -> Bool {
        !attribute.isOptional && attribute.defaultValue.isNull && attribute.derivationExpression == nil
    }

    // MARK: - Relationships

    private mutating func compareRelationships(
        _ old: EntityDescription, _ new: EntityDescription, _ matching: ModelMatching
    ) {
        let entity = new.name
        let pairs = ModelDifference.match(
            old.relationships, new.relationships, name: \.name, renamingIdentifier: \.renamingIdentifier)
        for (relationship, source) in pairs {
            guard let source else {
                changes.append(.relationshipAdded(entity: entity, relationship: relationship.name))
                if !relationship.isTransient, !relationship.isOptional {
                    reasonsNotLightweight.append(
                        "relationship \(entity).\(relationship.name) is added as required: existing objects have none")
                }
                continue
            }
            sourcePropertyNames[relationship.name] = source.name
            let name = relationship.name
            if source.name != name { changes.append(.relationshipRenamed(entity: entity, from: source.name, to: name)) }
            if matching.source(of: relationship.destinationEntity) !== source.destinationEntity {
                changes.append(
                    .relationshipDestinationChanged(
                        entity: entity, relationship: name,
                        from: source.destinationName, to: relationship.destinationName))
                reasonsNotLightweight.append(
                    "relationship \(entity).\(name) changes destination from "
                        + "\(source.destinationName) to \(relationship.destinationName)")
            } else if let moved = Self.objectsLeaving(source, relationship, matching) {
                reasonsNotLightweight.append(
                    "relationship \(entity).\(name) leads to \(relationship.destinationName), which \(moved) objects it may "
                        + "hold no longer are")
            }
            if let lost = Self.linksLost(source, relationship, matching) {
                reasonsNotLightweight.append(lost)
            }
            if source.isToMany != relationship.isToMany {
                changes.append(
                    .relationshipCardinalityChanged(entity: entity, relationship: name, isToMany: relationship.isToMany)
                )
                if !relationship.isToMany {
                    reasonsNotLightweight.append("relationship \(entity).\(name) changes from to-many to to-one")
                }
            }
            if source.isToMany, relationship.isToMany, source.isOrdered != relationship.isOrdered {
                changes.append(
                    .relationshipOrderingChanged(entity: entity, relationship: name, isOrdered: relationship.isOrdered))
            }
            if source.isOptional != relationship.isOptional {
                changes.append(
                    .relationshipOptionalityChanged(
                        entity: entity, relationship: name, isOptional: relationship.isOptional))
                if !relationship.isOptional {
                    reasonsNotLightweight.append(
                        "relationship \(entity).\(name) becomes required: existing objects may have none")
                }
            }
            if source.versionHashModifier != relationship.versionHashModifier {
                changes.append(.versionHashModifierChanged(entity: entity, property: name))
            }
        }
        let kept = Set(pairs.compactMap { $0.old.map(ObjectIdentifier.init) })
        for relationship in old.relationships where !kept.contains(ObjectIdentifier(relationship)) {
            changes.append(.relationshipRemoved(entity: entity, relationship: relationship.name))
        }
    }

    /// A source sub-entity of the relationship's destination whose objects become an entity outside the new
    /// destination's hierarchy (so a reference to one would lead to the wrong entity), if any.
    private static func objectsLeaving(
        _ source: RelationshipDescription, _ relationship: RelationshipDescription, _ matching: ModelMatching
    ) -> String? {
        for old in source.destinationEntity.selfAndDescendants {
            if let new = matching.destination(of: old), !new.isKind(of: relationship.destinationEntity) {
                return old.name
            }
        }
        return nil
    }

    /// Why a to-many's existing objects would be lost, if they would: the new model keeps it through its to-one
    /// inverse (a reference in the destination's rows), and that inverse did not hold the same links before
    /// (it is new, or it was not the inverse). Core Data would rebuild the links from the old ones; the
    /// store-level copy carries references and join-table links, not one turned into the other.
    private static func linksLost(
        _ source: RelationshipDescription, _ relationship: RelationshipDescription, _ matching: ModelMatching
    ) -> String? {
        guard relationship.isToMany, !relationship.isTransient, !source.isTransient,
            relationship.storage == .inverseForeignKey, let inverse = relationship.inverse
        else { return nil }
        let previous = matching.source(of: inverse)
        if let previous, !previous.isTransient, !previous.isToMany, source.inverse === previous { return nil }
        return
            "relationship \(relationship.entity.name).\(relationship.name) would lose its objects: the new model keeps "
            + "it through its to-one inverse \(inverse.entity.name).\(inverse.name), which did not hold them before"
    }

    // MARK: - Indexes and constraints

    private mutating func compareIndexes(_ old: EntityDescription, _ new: EntityDescription) {
        let entity = new.name
        // Source attribute names as the destination calls them, so a renamed attribute keeps its index.
        let renamed = Dictionary(sourcePropertyNames.map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        func translate(_ names: [String]) -> [String] { names.map { renamed[$0] ?? $0 } }
        // Inherited indexes and constraints count, so one moved between a parent and its children is no change.
        func lineage(_ entity: EntityDescription) -> [EntityDescription] {
            var chain: [EntityDescription] = []
            var current: EntityDescription? = entity
            while let candidate = current {
                chain.insert(candidate, at: 0)
                current = candidate.superentity
            }
            return chain
        }
        func indexes(_ entity: EntityDescription) -> [[String]] {
            lineage(entity).flatMap {
                $0.indexes.map(\.attributeNames) + $0.declaredAttributes.filter(\.isIndexed).map { [$0.name] }
            }
        }
        func constraints(_ entity: EntityDescription) -> [[String]] { lineage(entity).flatMap(\.uniquenessConstraints) }
        let oldIndexes = indexes(old).map(translate)
        let newIndexes = indexes(new)
        for names in newIndexes where !oldIndexes.contains(names) {
            changes.append(.indexAdded(entity: entity, attributes: names))
        }
        for names in oldIndexes where !newIndexes.contains(names) {
            changes.append(.indexRemoved(entity: entity, attributes: names))
        }
        let oldConstraints = constraints(old).map(translate)
        let newConstraints = constraints(new)
        for names in newConstraints where !oldConstraints.contains(where: { Set($0) == Set(names) }) {
            changes.append(.uniquenessConstraintAdded(entity: entity, attributes: names))
        }
        for names in oldConstraints where !newConstraints.contains(where: { Set($0) == Set(names) }) {
            changes.append(.uniquenessConstraintRemoved(entity: entity, attributes: names))
        }
    }
}
