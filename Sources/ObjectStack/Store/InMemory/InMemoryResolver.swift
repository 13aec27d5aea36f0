/// Reads an in-memory backing's state for the predicate evaluator.
struct InMemoryResolver: PredicateResolver {
    struct Row {
        let entity: EntityDescription
        let key: Int64
        let snapshot: RowSnapshot
    }

    let state: InMemoryBacking.State
    let entities: [String: EntityDescription]
    let storeIdentifier: String

    func row(for objectID: ManagedObjectID) -> Row? {
        guard !objectID.isTemporaryID, let stored = state.tables[objectID.entity.rootEntity.name]?.row(objectID.key),
            let entity = entities[stored.entityName]
        else { return nil }
        return Row(entity: entity, key: objectID.key, snapshot: stored.snapshot)
    }

    func objectID(of row: Row) -> ManagedObjectID {
        ManagedObjectID(entity: row.entity, storeIdentifier: storeIdentifier, primaryKey: row.key)
    }

    func value(of attribute: AttributeDescription, in row: Row) -> StoreValue {
        guard let index = attribute.storedIndex else { return .null }
        return row.snapshot.value(at: index)
    }

    func destination(of relationship: RelationshipDescription, in row: Row) -> ManagedObjectID? {
        guard let index = relationship.storedIndex, case .objectID(let id) = row.snapshot.value(at: index)
        else { return nil }
        return id
    }

    func destinations(of relationship: RelationshipDescription, in row: Row) -> [ManagedObjectID] {
        related(objectID(of: row), through: relationship)
    }

    /// The members of a to-many relationship, in primary-key order (join tables: in link order).
    func related(_ objectID: ManagedObjectID, through relationship: RelationshipDescription) -> [ManagedObjectID] {
        switch relationship.storage {
        case .foreignKey:
            return []
        case .inverseForeignKey:
            guard let inverse = relationship.inverse else { return [] }
            let table = state.tables[inverse.entity.rootEntity.name]
            let keys = table?.referrers[InMemorySave.relationshipKey(inverse)]?[objectID] ?? []
            return keys.sorted().compactMap { key in
                guard let stored = table?.row(key), let entity = entities[stored.entityName] else { return nil }
                return ManagedObjectID(entity: entity, storeIdentifier: storeIdentifier, primaryKey: key)
            }
        case .joinTable:
            let owner = relationship.joinTableOwner
            let links = state.links[InMemorySave.relationshipKey(owner)]
            return (owner === relationship ? links?.forward[objectID] : links?.backward[objectID]) ?? []
        }
    }
}
