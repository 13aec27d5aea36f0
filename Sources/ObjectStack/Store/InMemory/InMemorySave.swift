import Foundation

/// One save into an in-memory backing: checked in full first, then applied, so it lands whole or not at all.
struct InMemorySave {
    let request: StoreSaveRequest
    let url: URL
    /// The ordered indexes (fetch indexes and uniqueness constraints) each entity's rows are in, by entity name.
    let orderedIndexes: [String: [QueryIndex]]

    static func relationshipKey(_ relationship: RelationshipDescription) -> String {
        relationship.storageKey
    }

    static func constraintKey(_ entity: EntityDescription, _ attributes: [AttributeDescription]) -> String {
        "\(entity.name):" + attributes.map(\.name).joined(separator: ",")
    }

    /// Throws a version or constraint conflict if the save cannot apply; changes nothing.
    func validate(against state: InMemoryBacking.State) throws {
        var conflicts: [StoreVersionConflict] = []
        func check(_ id: ManagedObjectID, _ expected: Int64?) {
            let row = state.tables[id.entity.rootEntity.name]?.row(id.key)
            guard let expected else { return }
            if row?.snapshot.version != expected {
                conflicts.append(
                    StoreVersionConflict(objectID: id, expectedVersion: expected, storedSnapshot: row?.snapshot))
            }
        }
        for update in request.updates { check(update.objectID, update.expectedVersion) }
        for delete in request.deletes { check(delete.objectID, delete.expectedVersion) }
        for update in request.updates
        where update.expectedVersion == nil
            && state.tables[update.objectID.entity.rootEntity.name]?.row(update.objectID.key) == nil
        {
            conflicts.append(StoreVersionConflict(objectID: update.objectID, expectedVersion: 0, storedSnapshot: nil))
        }
        if !conflicts.isEmpty {
            var error = StoreError(
                code: .versionConflict,
                message: "\(conflicts.count) object(s) changed in the store since they were read", url: url)
            error.versionConflicts = conflicts
            throw error
        }
        try checkUniqueness(against: state)
    }

    /// Checks the save's uniqueness constraints by the rule every store keeps (`UniquenessCheck`); the backing's
    /// table of each constraint's values names the row holding a combination.
    private func checkUniqueness(against state: InMemoryBacking.State) throws {
        // Each constraint's key in the backing, made once per save and not for every claim of a bulk insert.
        var keys: [Int: String] = [:]
        try UniquenessCheck(request).run(url: url) { claim, visit in
            let root = claim.declaring.rootEntity
            let table = state.tables[root.name]
            let key =
                keys[claim.number]
                ?? {
                    let made = Self.constraintKey(claim.declaring, claim.attributes)
                    keys[claim.number] = made
                    return made
                }()
            guard let ownerKey = table?.unique[key]?[claim.values],
                ownerKey != claim.claimant.key, let owner = table?.row(ownerKey)
            else { return }
            let entity = root.selfAndDescendants.first { $0.name == owner.entityName } ?? claim.claimant.entity
            _ = try visit(ownerKey, entity)
        }
    }

    /// Applies a validated save; returns the new version of each written row.
    func apply(to state: inout InMemoryBacking.State) -> [ManagedObjectID: Int64] {
        var versions: [ManagedObjectID: Int64] = [:]
        for delete in request.deletes {
            let id = delete.objectID
            let root = id.entity.rootEntity.name
            guard let old = state.tables[root]?.row(id.key) else { continue }
            state.tables[root]!.rows.remove(InMemoryBacking.KeyedRow(key: id.key, row: old))
            unindex(id, old.snapshot.values, in: &state.tables[root, default: .init()])
            for name in Array(state.links.keys) {
                if let targets = state.links[name]!.forward.removeValue(forKey: id) {
                    for target in targets { state.links[name]!.backward[target]?.removeAll { $0 == id } }
                }
                if let sources = state.links[name]!.backward.removeValue(forKey: id) {
                    for source in sources { state.links[name]!.forward[source]?.removeAll { $0 == id } }
                }
            }
        }
        for update in request.updates {
            let id = update.objectID
            let root = id.entity.rootEntity.name
            guard let old = state.tables[root]?.row(id.key) else { continue }
            unindex(id, old.snapshot.values, in: &state.tables[root, default: .init()])
            let snapshot = RowSnapshot(values: update.values, version: old.snapshot.version + 1)
            state.tables[root, default: .init()].rows.insert(
                InMemoryBacking.KeyedRow(key: id.key, row: .init(entityName: id.entityName, snapshot: snapshot)))
            index(id, update.values, in: &state.tables[root, default: .init()])
            // A checked update's new version is its expected one plus one: the caller knows it.
            if update.expectedVersion == nil { versions[id] = snapshot.version }
        }
        for insert in request.inserts {
            let id = insert.objectID
            let root = id.entity.rootEntity.name
            state.tables[root, default: .init()].rows.insert(
                InMemoryBacking.KeyedRow(
                    key: id.key,
                    row: .init(entityName: id.entityName, snapshot: RowSnapshot(values: insert.values, version: 1))))
            index(id, insert.values, in: &state.tables[root, default: .init()])
            state.tables[root, default: .init()].lastKey = max(state.tables[root]?.lastKey ?? 0, id.key)
        }
        for link in request.deletedLinks {
            state.links[link.relationship]?.forward[link.source]?.removeAll { $0 == link.destination }
            state.links[link.relationship]?.backward[link.destination]?.removeAll { $0 == link.source }
        }
        for link in request.insertedLinks {
            if !(state.links[link.relationship]?.forward[link.source]?.contains(link.destination) ?? false) {
                state.links[link.relationship, default: .init()].forward[link.source, default: []].append(
                    link.destination)
                state.links[link.relationship, default: .init()].backward[link.destination, default: []].append(
                    link.source)
            }
        }
        return versions
    }

    /// An ordered index's entry for a row, or nil when a uniqueness constraint skips it (a nil in its values).
    private static func entry(_ index: QueryIndex, _ values: [StoreValue], _ key: Int64) -> InMemoryBacking.IndexEntry?
    {
        var columns: [StoreValue] = []
        columns.reserveCapacity(index.columns.count)
        for position in index.columns.indices {
            guard let attribute = index.attribute(at: position), let stored = attribute.storedIndex else { return nil }
            let value = values[stored]
            if index.kind == .unique, value.isNull { return nil }
            columns.append(value)
        }
        return InMemoryBacking.IndexEntry(values: columns, key: key)
    }

    private func index(_ id: ManagedObjectID, _ values: [StoreValue], in table: inout InMemoryBacking.Table) {
        for (declaring, constraint) in id.entity.applicableUniquenessConstraints {
            let combination = constraint.map { values[$0.storedIndex!] }
            if combination.contains(where: \.isNull) { continue }
            table.unique[Self.constraintKey(declaring, constraint), default: [:]][combination] = id.key
        }
        for index in orderedIndexes[id.entityName] ?? [] {
            if let entry = Self.entry(index, values, id.key) {
                table.indexes[index.name, default: .init()].insert(entry)
            }
        }
        for case .toOne(let relationship) in id.entity.storedProperties {
            if case .objectID(let target) = values[relationship.storedIndex!] {
                table.referrers[Self.relationshipKey(relationship), default: [:]][target, default: []].insert(id.key)
            }
        }
    }

    private func unindex(_ id: ManagedObjectID, _ values: [StoreValue], in table: inout InMemoryBacking.Table) {
        for (declaring, constraint) in id.entity.applicableUniquenessConstraints {
            let combination = constraint.map { values[$0.storedIndex!] }
            let key = Self.constraintKey(declaring, constraint)
            if table.unique[key]?[combination] == id.key { table.unique[key]?[combination] = nil }
        }
        for index in orderedIndexes[id.entityName] ?? [] {
            if let entry = Self.entry(index, values, id.key) { table.indexes[index.name]?.remove(entry) }
        }
        for case .toOne(let relationship) in id.entity.storedProperties {
            if case .objectID(let target) = values[relationship.storedIndex!] {
                table.referrers[Self.relationshipKey(relationship)]?[target]?.remove(id.key)
            }
        }
    }
}
