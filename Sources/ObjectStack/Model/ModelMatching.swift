/// Which element of a source model each element of a destination model continues: the matches
/// `ModelDifference` finds (renaming identifier first, then name), in both directions, for the checks that
/// look across entities (a relationship's destination, its inverse, a hierarchy).
struct ModelMatching {
    /// Destination entity -> the source entity it continues.
    let sourceOfEntity: [ObjectIdentifier: EntityDescription]
    /// Source entity -> the destination entity that continues it.
    let destinationOfEntity: [ObjectIdentifier: EntityDescription]
    /// Destination relationship (by its declaring entity) -> the source relationship it continues.
    let sourceOfRelationship: [ObjectIdentifier: RelationshipDescription]

    init(source: ManagedObjectModel, destination: ManagedObjectModel) {
        var sourceOfEntity: [ObjectIdentifier: EntityDescription] = [:]
        var destinationOfEntity: [ObjectIdentifier: EntityDescription] = [:]
        let pairs = ModelDifference.match(
            source.entities, destination.entities, name: \.name, renamingIdentifier: \.renamingIdentifier)
        for case (let new, let old?) in pairs {
            sourceOfEntity[ObjectIdentifier(new)] = old
            destinationOfEntity[ObjectIdentifier(old)] = new
        }
        var sourceOfRelationship: [ObjectIdentifier: RelationshipDescription] = [:]
        for entity in destination.entities {
            guard let old = sourceOfEntity[ObjectIdentifier(entity)] else { continue }
            let relationships = ModelDifference.match(
                old.relationships, entity.relationships, name: \.name, renamingIdentifier: \.renamingIdentifier)
            // An inherited relationship is the same description in every sub-entity: its declaring entity's
            // match is the one that counts.
            for case (let new, let previous?) in relationships where new.entity === entity {
                sourceOfRelationship[ObjectIdentifier(new)] = previous
            }
        }
        self.sourceOfEntity = sourceOfEntity
        self.destinationOfEntity = destinationOfEntity
        self.sourceOfRelationship = sourceOfRelationship
    }

    /// The source relationship a destination relationship continues, nil for a new one.
    func source(of relationship: RelationshipDescription) -> RelationshipDescription? {
        sourceOfRelationship[ObjectIdentifier(relationship)]
    }

    /// The source entity a destination entity continues, nil for a new one.
    func source(of entity: EntityDescription) -> EntityDescription? {
        sourceOfEntity[ObjectIdentifier(entity)]
    }

    /// The destination entity that continues a source entity, nil for a removed one.
    func destination(of entity: EntityDescription) -> EntityDescription? {
        destinationOfEntity[ObjectIdentifier(entity)]
    }
}
