import Foundation

/// How the rows of a store written with one model become rows of another, inferred from the two models the
/// way Core Data infers a lightweight migration's mapping model.
///
/// For example:
/// ```swift
/// let plan = try MigrationPlan.infer(from: version1, to: version2, configuration: nil)
/// for copy in plan.copies { print(copy.source.name, "→", copy.destination.name) }
/// ```
/// What a lightweight migration covers is decided by `ModelDifference` alone (the same verdict
/// `stacklab model` prints); the plan follows its matches of entities and properties. What it covers:
/// entities and properties added, removed or renamed through a renaming identifier, optional made required
/// with a default (nil values take it), a to-one made to-many (its references become links), hierarchy
/// changes that merge no hierarchies, uniqueness constraints and indexes (the new store builds them).
/// - Note: Immutable; safe to share between threads.
struct MigrationPlan: Sendable {
    /// Where one value of a new row comes from.
    enum ValueSource: Sendable {
        /// The old row's value at `sourceIndex`. When `required` is set, a nil there takes the attribute's
        /// default, and without one the migration fails naming the attribute.
        case attribute(sourceIndex: Int, required: AttributeDescription?)
        /// The old row's reference at `sourceIndex`, re-pointed at the object's entity in the new model.
        case reference(sourceIndex: Int)
        /// The same value in every row: a new property's default (or nil).
        case constant(StoreValue)
    }

    /// The links of a join-table relationship to carry over for the rows of one entity.
    struct LinkCopy: Sendable {
        /// Where an old row's related objects are read.
        enum Read: Sendable {
            /// Through a to-many of the old model.
            case related(RelationshipDescription)
            /// The reference at this index of the old row: a to-one made to-many.
            case reference(sourceIndex: Int)
        }

        let read: Read
        /// The relationship that owns the join table in the new model.
        let destinationOwner: RelationshipDescription
        /// Whether the rows copied are on the far side of the owner (the owner is new, its inverse is not), so
        /// each link runs from the related object to the row.
        let reversed: Bool
    }

    /// The rows of one concrete entity of the old model and what they become.
    struct EntityCopy: Sendable {
        let source: EntityDescription
        let destination: EntityDescription
        /// One source per stored property of `destination`, by `storedIndex`.
        let values: [ValueSource]
        let links: [LinkCopy]
    }

    let source: ManagedObjectModel
    let destination: ManagedObjectModel
    /// The copies to make, in the old model's entity order.
    let copies: [EntityCopy]
    /// What each new entity becomes, by the old entity's name (removed entities are absent).
    let destinationEntities: [String: EntityDescription]
    /// What changes, per entity name, in words (for progress, errors and `stacklab`).
    let changes: [String: [String]]

    // MARK: - Inference

    /// Infers the plan from the model that wrote a store to the model it must now hold.
    /// - Throws: `StoreError(.incompatibleModel)` with `ModelDifference`'s reasons when a lightweight migration
    ///   does not cover the change.
    static func infer(from source: ManagedObjectModel, to destination: ManagedObjectModel, configuration: String?)
        throws
        -> MigrationPlan
    {
        let difference = ModelDifference(from: source, to: destination, configuration: configuration)
        var changes: [String: [String]] = [:]
        for change in difference.changes { changes[change.entityName, default: []].append(change.description) }
        guard difference.isLightweightMigratable else {
            throw StoreError(
                code: .incompatibleModel,
                message: "the store cannot be migrated to the new model; a lightweight migration does not cover: "
                    + difference.reasonsNotLightweight.joined(separator: "; "))
        }
        let mappings = Dictionary(difference.entityMappings.map { ($0.destination.name, $0) }) { first, _ in first }
        var copies: [EntityCopy] = []
        for mapping in difference.entityMappings where !mapping.source.isAbstract && !mapping.destination.isAbstract {
            copies.append(
                EntityCopy(
                    source: mapping.source, destination: mapping.destination,
                    values: values(mapping), links: links(mapping, mappings: mappings)))
        }
        let order = Dictionary(uniqueKeysWithValues: source.entities.enumerated().map { ($1.name, $0) })
        copies.sort { order[$0.source.name, default: 0] < order[$1.source.name, default: 0] }
        let destinationEntities = Dictionary(difference.entityMappings.map { ($0.source.name, $0.destination) }) {
            a, _ in a
        }
        return MigrationPlan(
            source: source, destination: destination, copies: copies,
            destinationEntities: destinationEntities, changes: changes)
    }

    /// The old stored property a new property continues, if it has one.
    private static func previous(_ name: String, in mapping: ModelDifference.EntityMapping) -> String? {
        mapping.sourcePropertyNames[name]
    }

    private static func values(_ mapping: ModelDifference.EntityMapping) -> [ValueSource] {
        let old = mapping.source
        return mapping.destination.storedProperties.map { property in
            switch property {
            case .attribute(let attribute):
                guard let name = previous(attribute.name, in: mapping), let before = old.attributesByName[name],
                    !before.isTransient, let index = before.storedIndex
                else { return .constant(attribute.defaultValue) }
                return .attribute(sourceIndex: index, required: attribute.isOptional ? nil : attribute)
            case .toOne(let relationship):
                guard let name = previous(relationship.name, in: mapping), let before = old.relationshipsByName[name],
                    !before.isTransient, !before.isToMany, let index = before.storedIndex
                else { return .constant(.null) }
                return .reference(sourceIndex: index)
            }
        }
    }

    /// The join-table links to copy with an entity's rows: those of each join table it owns, read through the
    /// old relationship (a to-many, or a to-one made to-many), and those of a join table whose owner is new
    /// but whose other side is not, read from this side.
    private static func links(
        _ mapping: ModelDifference.EntityMapping, mappings: [String: ModelDifference.EntityMapping]
    ) -> [LinkCopy] {
        func read(_ relationship: RelationshipDescription, in mapping: ModelDifference.EntityMapping) -> LinkCopy.Read?
        {
            guard let name = previous(relationship.name, in: mapping),
                let before = mapping.source.relationshipsByName[name],
                !before.isTransient
            else { return nil }
            if before.isToMany { return .related(before) }
            return before.storedIndex.map { .reference(sourceIndex: $0) }
        }
        var links: [LinkCopy] = []
        for relationship in mapping.destination.relationships
        where relationship.isToMany && !relationship.isTransient && relationship.storage == .joinTable {
            let owner = relationship.joinTableOwner
            if owner === relationship {
                if let read = read(relationship, in: mapping) {
                    links.append(LinkCopy(read: read, destinationOwner: owner, reversed: false))
                }
            } else {
                let ownerMapping = mappings[owner.entity.name]
                guard ownerMapping.flatMap({ read(owner, in: $0) }) == nil, let read = read(relationship, in: mapping)
                else { continue }
                links.append(LinkCopy(read: read, destinationOwner: owner, reversed: true))
            }
        }
        return links
    }

    // MARK: - Rows

    /// The values of the new row made from an old one.
    /// - Throws: `StoreError(.migrationFailed)` when a required attribute is nil and has no default.
    func values(for copy: EntityCopy, from row: RowSnapshot, key: Int64, storeIdentifier: String) throws -> [StoreValue]
    {
        var values: [StoreValue] = []
        values.reserveCapacity(copy.values.count)
        for source in copy.values {
            switch source {
            case .constant(let value):
                values.append(value)
            case .attribute(let index, let required):
                let value = row.value(at: index)
                if value.isNull, let required {
                    guard !required.defaultValue.isNull else {
                        throw StoreError(
                            code: .migrationFailed,
                            message: "\(copy.destination.name).\(required.name) is required in the new model, but the "
                                + "\(copy.source.name) object with key \(key) has no value and the attribute has no default"
                        )
                    }
                    values.append(required.defaultValue)
                } else {
                    values.append(value)
                }
            case .reference(let index):
                values.append(
                    reference(row.value(at: index), storeIdentifier: storeIdentifier))
            }
        }
        return values
    }

    /// An old reference re-pointed at the new model's entity (nil when that entity was removed).
    func reference(_ value: StoreValue, storeIdentifier: String) -> StoreValue {
        guard case .objectID(let id) = value, let entity = destinationEntities[id.entity.name] else { return .null }
        return .objectID(ManagedObjectID(entity: entity, storeIdentifier: storeIdentifier, primaryKey: id.key))
    }

    /// An old object's ID in the new store, nil when its entity was removed.
    func objectID(_ id: ManagedObjectID, storeIdentifier: String) -> ManagedObjectID? {
        destinationEntities[id.entity.name].map {
            ManagedObjectID(entity: $0, storeIdentifier: storeIdentifier, primaryKey: id.key)
        }
    }
}
