import Foundation

extension ManagedObjectContext {
    // MARK: - Requests to the parent store

    /// Rows for objects from the context's parent store: its parent context (on the parent's queue) or its
    /// coordinator (the row cache, or the store when `fresh` or the cached row is older than
    /// `stalenessInterval`).
    func parentSnapshots(for ids: [ManagedObjectID], fresh: Bool) throws -> [RowSnapshot?] {
        if let parent = parentStorage {
            return parent.performAndWait { parent.rowsForChild(ids) }
        }
        if let generation = queryGenerationStorage {
            // One read per store of the generation, in the order asked.
            var rows = [RowSnapshot?](repeating: nil, count: ids.count)
            let byStore = Dictionary(grouping: ids.indices, by: { ids[$0].storeIdentifier })
            for (store, positions) in byStore {
                let found = try generation.reader(for: store).snapshots(for: positions.map { ids[$0] })
                for (position, row) in zip(positions, found) { rows[position] = row }
            }
            return rows
        }
        if fresh { return try coordinator.freshSnapshots(for: ids) }
        let maximumAge = stalenessInterval >= 0 ? stalenessInterval : nil
        return try ids.map { try coordinator.snapshot(for: $0, maximumAge: maximumAge) }
    }

    /// The members of a to-many relationship for each object, as the parent store has them.
    func parentRelatedObjectIDs(of ids: [ManagedObjectID], through relationship: RelationshipDescription) throws
        -> [[ManagedObjectID]]
    {
        if let parent = parentStorage {
            return parent.performAndWait { parent.relatedForChild(ids, relationship) }
        }
        if let generation = queryGenerationStorage {
            let saved = ids.filter { !$0.isTemporaryID }
            guard let first = saved.first else { return ids.map { _ in [] } }
            let found = try generation.reader(for: first.storeIdentifier).relatedObjectIDs(
                of: saved, through: relationship)
            let byID = Dictionary(zip(saved, found), uniquingKeysWith: { a, _ in a })
            return ids.map { byID[$0] ?? [] }
        }
        return try coordinator.relatedObjectIDs(of: ids, through: relationship)
    }

    /// Runs a fetch on the parent store: the parent context's view (its unsaved changes included) or the store.
    func parentFetch(_ request: StoreFetchRequest, cachingRows: Bool = true) throws -> StoreFetchResult {
        if let parent = parentStorage {
            return try parent.performAndWait { try parent.fetchForChild(request) }
        }
        do {
            if let generation = queryGenerationStorage {
                return try generation.reader(for: try coordinator.store(for: request.entity).identifier)
                    .execute(request)
            }
            return try coordinator.execute(request, cachingRows: cachingRows)
        } catch let error as StoreError {
            throw ObjectStackError(
                code: .storeFailed, message: "fetch of \(request.entity.name) failed: \(error.message)", cause: error)
        }
    }

    // MARK: - Serving a child

    /// An object's current values as a row, for a child; nil when it is deleted or gone.
    func rowForChild(_ object: ManagedObject) -> RowSnapshot? {
        object.fireFault()
        if object.isInaccessible || object.deletedFlag { return nil }
        return RowSnapshot(values: rowValues(of: object), version: object.snapshot?.version ?? 0)
    }

    func rowsForChild(_ ids: [ManagedObjectID]) -> [RowSnapshot?] {
        ids.map { id in
            let id = resolved(id)
            if id.isTemporaryID, registered[id] == nil { return nil }
            return rowForChild(object(with: id))
        }
    }

    func relatedForChild(_ ids: [ManagedObjectID], _ relationship: RelationshipDescription) -> [[ManagedObjectID]] {
        ids.map { id in
            let id = resolved(id)
            if id.isTemporaryID, registered[id] == nil { return [] }
            return object(with: id).toManyIDs(relationship)
        }
    }

    func fetchForChild(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        if case .values = request.resultType {
            // Dictionary results reflect saved data only, as in Core Data: ask the parent's own store.
            return try parentFetch(request)
        }
        let plan = FetchPlan(store: request)
        switch try execute(plan) {
        case .objects(let objects):
            return .objects(objects.compactMap { object in rowForChild(object).map { (object.objectID, $0) } })
        case .objectIDs(let ids): return .objectIDs(ids)
        case .count(let count): return .count(count)
        case .dictionaries: return .values([])
        }
    }
}
