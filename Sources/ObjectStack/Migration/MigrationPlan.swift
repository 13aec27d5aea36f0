import Foundation

/// How the rows of a store written with one model become rows of another, inferred from the two models the
/// way Core Data infers a lightweight migration's mapping model.
///
/// For example:
/// ```swift
/// let plan = try MigrationPlan.infer(from: version1, to: version2, configuration: nil)
/// for copy in plan.copies { print(copy.source.name, "→", copy.destination.name) }
/// ```
/// An entity or property maps to the one of the old model with its `renamingIdentifier` (or, without one,
/// its name). What can be inferred: entities and attributes added or removed, renamed through a renaming
/// identifier, optional made required (nil values take the default), relationships added or removed or
/// renamed, uniqueness constraints and indexes added or removed (the new store builds them). What cannot:
/// a type change, a to-one made to-many or back, a changed parent entity, a new required attribute without
/// a default; those make `infer` throw, listing every entity and why.
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
        /// The relationship in the old model the links are read through.
        let source: RelationshipDescription
        /// The relationship that owns the join table in the new model.
        let destinationOwner: RelationshipDescription
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
    /// - Throws: `StoreError(.incompatibleModel)` listing each entity whose change cannot be inferred, and why.
    static func infer(from source: ManagedObjectModel, to destination: ManagedObjectModel, configuration: String?) throws
        -> MigrationPlan
    {
        let oldEntities = Dictionary(uniqueKeysWithValues: source.entities(forConfiguration: configuration).map { ($0.name, $0) })
        let newEntities = destination.entities(forConfiguration: configuration)
        var problems: [String: [String]] = [:]
        var changes: [String: [String]] = [:]

        // Entities: each new one finds its old one by renaming identifier, then by name.
        var sourceOf: [String: EntityDescription] = [:]
        for entity in newEntities {
            if let old = entity.renamingIdentifier.flatMap({ oldEntities[$0] }) ?? oldEntities[entity.name] {
                sourceOf[entity.name] = old
                if old.name != entity.name { changes[entity.name, default: []].append("renamed from \(old.name)") }
            } else {
                changes[entity.name, default: []].append("added")
            }
        }
        var destinationOf: [String: EntityDescription] = [:]
        for entity in newEntities {
            guard let old = sourceOf[entity.name] else { continue }
            if let other = destinationOf[old.name] {
                problems[entity.name, default: []].append("both it and \(other.name) come from \(old.name)")
            }
            destinationOf[old.name] = entity
        }
        for name in oldEntities.keys.sorted() where destinationOf[name] == nil {
            changes[name, default: []].append("removed (its rows are dropped)")
        }

        var copies: [EntityCopy] = []
        for entity in newEntities {
            guard let old = sourceOf[entity.name] else { continue }
            var found = Inference(entity: entity, old: old, destinationOf: destinationOf)
            found.checkShape(sourceOf: sourceOf)
            let values = found.values()
            let links = found.links()
            found.noteRemovedProperties()
            if !found.problems.isEmpty { problems[entity.name, default: []] += found.problems }
            if !found.changes.isEmpty { changes[entity.name, default: []] += found.changes }
            if !old.isAbstract && !entity.isAbstract {
                copies.append(EntityCopy(source: old, destination: entity, values: values, links: links))
            }
        }
        guard problems.isEmpty else {
            let listed = problems.keys.sorted().map { "\($0): \(problems[$0]!.joined(separator: "; "))" }
            throw StoreError(code: .incompatibleModel,
                message: "the store cannot be migrated to the new model; the mapping cannot be inferred for "
                    + listed.joined(separator: " | "))
        }
        let order = Dictionary(uniqueKeysWithValues: source.entities.enumerated().map { ($1.name, $0) })
        copies.sort { order[$0.source.name, default: 0] < order[$1.source.name, default: 0] }
        return MigrationPlan(source: source, destination: destination, copies: copies, destinationEntities: destinationOf,
            changes: changes)
    }

    /// The differences between two entities that a lightweight migration handles or refuses.
    private struct Inference {
        let entity: EntityDescription
        let old: EntityDescription
        let destinationOf: [String: EntityDescription]
        var problems: [String] = []
        var changes: [String] = []
        /// The old properties some new property maps to; the others are removed.
        private var used: Set<String> = []

        init(entity: EntityDescription, old: EntityDescription, destinationOf: [String: EntityDescription]) {
            self.entity = entity
            self.old = old
            self.destinationOf = destinationOf
        }

        mutating func checkShape(sourceOf: [String: EntityDescription]) {
            let expectedParent = entity.superentity.flatMap { sourceOf[$0.name]?.name }
            if expectedParent != old.superentity?.name {
                problems.append("its parent entity changed from \(old.superentity?.name ?? "none") to \(entity.superentity?.name ?? "none")")
            }
            if entity.isAbstract && !old.isAbstract {
                problems.append("it became abstract, so its rows would have no entity")
            }
            let oldConstraints = Set(old.uniquenessConstraints)
            let newConstraints = Set(entity.uniquenessConstraints)
            for added in newConstraints.subtracting(oldConstraints) {
                changes.append("uniqueness constraint (\(added.joined(separator: ", "))) added")
            }
            for removed in oldConstraints.subtracting(newConstraints) {
                changes.append("uniqueness constraint (\(removed.joined(separator: ", "))) removed")
            }
            let oldIndexes = Set(old.indexes.map(\.name) + old.declaredAttributes.filter(\.isIndexed).map { "." + $0.name })
            let newIndexes = Set(entity.indexes.map(\.name) + entity.declaredAttributes.filter(\.isIndexed).map { "." + $0.name })
            for added in newIndexes.subtracting(oldIndexes).sorted() { changes.append("index \(added) added") }
            for removed in oldIndexes.subtracting(newIndexes).sorted() { changes.append("index \(removed) removed") }
        }

        /// The old property a new one maps to: by renaming identifier, then by name.
        private func oldName(_ name: String, renamingIdentifier: String?) -> [String] {
            [renamingIdentifier, name].compactMap { $0 }
        }

        mutating func values() -> [ValueSource] {
            var sources: [ValueSource] = []
            for property in entity.storedProperties {
                switch property {
                case .attribute(let attribute): sources.append(value(for: attribute))
                case .toOne(let relationship): sources.append(value(for: relationship))
                }
            }
            return sources
        }

        private mutating func value(for attribute: AttributeDescription) -> ValueSource {
            let candidates = oldName(attribute.name, renamingIdentifier: attribute.renamingIdentifier)
            guard let previous = candidates.compactMap({ old.attributesByName[$0] }).first(where: { !$0.isTransient })
            else {
                if candidates.contains(where: { old.relationshipsByName[$0] != nil }) {
                    problems.append("\(attribute.name) changed from a relationship to an attribute")
                } else if !attribute.isOptional && attribute.defaultValue.isNull && attribute.derivationExpression == nil {
                    problems.append("new attribute \(attribute.name) is required but has no default value")
                } else {
                    changes.append("attribute \(attribute.name) added")
                }
                return .constant(attribute.defaultValue)
            }
            used.insert(previous.name)
            if previous.type != attribute.type {
                problems.append("attribute \(attribute.name) changed type from \(previous.type.rawValue) to \(attribute.type.rawValue)")
            }
            if previous.name != attribute.name { changes.append("attribute \(previous.name) renamed to \(attribute.name)") }
            if previous.isOptional && !attribute.isOptional {
                changes.append("attribute \(attribute.name) made required"
                    + (attribute.defaultValue.isNull ? " (no default: a nil value fails the migration)" : " (nil values take the default)"))
            }
            return .attribute(sourceIndex: previous.storedIndex ?? 0, required: attribute.isOptional ? nil : attribute)
        }

        private mutating func value(for relationship: RelationshipDescription) -> ValueSource {
            let candidates = oldName(relationship.name, renamingIdentifier: relationship.renamingIdentifier)
            guard let previous = candidates.compactMap({ old.relationshipsByName[$0] }).first(where: { !$0.isTransient })
            else {
                if candidates.contains(where: { old.attributesByName[$0] != nil }) {
                    problems.append("\(relationship.name) changed from an attribute to a relationship")
                } else if !relationship.isOptional {
                    problems.append("new relationship \(relationship.name) is required, and old rows have nothing to fill it")
                } else {
                    changes.append("relationship \(relationship.name) added")
                }
                return .constant(.null)
            }
            used.insert(previous.name)
            guard !previous.isToMany, let index = previous.storedIndex else {
                problems.append("relationship \(relationship.name) changed from to-many to to-one")
                return .constant(.null)
            }
            checkDestination(of: relationship, previous: previous)
            if previous.name != relationship.name {
                changes.append("relationship \(previous.name) renamed to \(relationship.name)")
            }
            return .reference(sourceIndex: index)
        }

        private mutating func checkDestination(of relationship: RelationshipDescription, previous: RelationshipDescription) {
            let mapped = destinationOf[previous.destinationEntity.name]
            if mapped.map({ !$0.isKind(of: relationship.destinationEntity) }) ?? true {
                problems.append("relationship \(relationship.name) now leads to \(relationship.destinationEntity.name) instead of "
                    + "\(previous.destinationEntity.name)")
            }
        }

        mutating func noteRemovedProperties() {
            for attribute in old.attributes where !attribute.isTransient && !used.contains(attribute.name) {
                changes.append("attribute \(attribute.name) removed (its values are dropped)")
            }
            for relationship in old.relationships where !relationship.isTransient && !used.contains(relationship.name) {
                changes.append("relationship \(relationship.name) removed")
            }
        }

        mutating func links() -> [LinkCopy] {
            var links: [LinkCopy] = []
            for relationship in entity.relationships where relationship.isToMany && !relationship.isTransient {
                let candidates = oldName(relationship.name, renamingIdentifier: relationship.renamingIdentifier)
                guard let previous = candidates.compactMap({ old.relationshipsByName[$0] }).first(where: { !$0.isTransient })
                else {
                    if relationship.minCount > 0 {
                        problems.append("new relationship \(relationship.name) needs at least \(relationship.minCount) objects")
                    } else if relationship.entity === entity {
                        changes.append("relationship \(relationship.name) added")
                    }
                    continue
                }
                used.insert(previous.name)
                guard previous.isToMany else {
                    problems.append("relationship \(relationship.name) changed from to-one to to-many")
                    continue
                }
                checkDestination(of: relationship, previous: previous)
                guard previous.storage == relationship.storage else {
                    problems.append("relationship \(relationship.name) changed how it is stored (its inverse changed between "
                        + "to-one and to-many)")
                    continue
                }
                if previous.name != relationship.name, relationship.entity === entity {
                    changes.append("relationship \(previous.name) renamed to \(relationship.name)")
                }
                if relationship.storage == .joinTable, relationship.joinTableOwner === relationship {
                    links.append(LinkCopy(source: previous, destinationOwner: relationship))
                }
            }
            return links
        }
    }

    // MARK: - Rows

    /// The values of the new row made from an old one.
    /// - Throws: `StoreError(.migrationFailed)` when a required attribute is nil and has no default.
    func values(for copy: EntityCopy, from row: RowSnapshot, key: Int64, storeIdentifier: String) throws -> [StoreValue] {
        var values: [StoreValue] = []
        values.reserveCapacity(copy.values.count)
        for source in copy.values {
            switch source {
            case .constant(let value):
                values.append(value)
            case .attribute(let index, let required):
                let value = index < row.values.count ? row.values[index] : .null
                if value.isNull, let required {
                    guard !required.defaultValue.isNull else {
                        throw StoreError(code: .migrationFailed,
                            message: "\(copy.destination.name).\(required.name) is required in the new model, but the "
                                + "\(copy.source.name) object with key \(key) has no value and the attribute has no default")
                    }
                    values.append(required.defaultValue)
                } else {
                    values.append(value)
                }
            case .reference(let index):
                values.append(reference(index < row.values.count ? row.values[index] : .null, storeIdentifier: storeIdentifier))
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
