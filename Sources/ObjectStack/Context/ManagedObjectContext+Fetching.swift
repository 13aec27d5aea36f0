import Foundation

extension ManagedObjectContext {
    // MARK: - Fetching

    /// Fetches the objects (or IDs, or dictionaries) a request describes.
    ///
    /// Unsaved changes show in the results unless `includesPendingChanges` is false: inserted objects that
    /// match are added, deleted ones removed, and changed ones matched on their current values.
    /// - Complexity: a store fetch; with unsaved changes of the entity, also O(n log n) in the matches to
    ///   merge and sort them in memory.
    /// - Throws: `ObjectStackError`: `.unknownEntity`, `.unknownKeyPath`, `.typeMismatch` naming the culprit,
    ///   or `.storeFailed` with the store's error.
    public func fetch<T: FetchRequestResult>(_ request: FetchRequest<T>) throws -> [T] {
        assertOnQueue("fetch(_:)")
        if let aggregate = try AggregateFetchPlan(request: request, model: model, resultClass: T.self) {
            return try fetchAggregates(aggregate)
        }
        let plan = try FetchPlan(request: request, model: model, resultClass: T.self)
        let results = try execute(plan)
        switch results {
        case .objects(let objects):
            if T.self == ManagedObjectID.self { return objects.map { $0.objectID as! T } }
            // `fetch` runs unspecialised, so `as? T` per object is a dynamic cast with metadata lookups, and
            // building a new [T] copies through T's witnesses. For a class, each dynamic class is checked once
            // and the array is reinterpreted, as the standard library's own array downcast does after checking.
            guard T.self is ManagedObject.Type else {
                return try objects.map { object in
                    guard let typed = object as? T else { throw Self.fetchedTypeMismatch(object, T.self) }
                    return typed
                }
            }
            var passed: ObjectIdentifier?
            for object in objects {
                let dynamicType = ObjectIdentifier(type(of: object))
                if dynamicType == passed { continue }
                guard object is T else { throw Self.fetchedTypeMismatch(object, T.self) }
                passed = dynamicType
            }
            return unsafeBitCast(objects, to: [T].self)
        case .objectIDs(let ids):
            guard T.self == ManagedObjectID.self else {
                return try ids.map { id in
                    guard let typed = object(with: id) as? T else {
                        throw ObjectStackError.typeMismatch("fetched \(id.entityName) objects are not \(T.self)")
                    }
                    return typed
                }
            }
            return ids.map { $0 as! T }
        case .dictionaries(let rows):
            return rows.map { $0 as! T }
        case .count(let count):
            throw ObjectStackError(
                code: .invalidArgument,
                message: "a count request returns \(count); use count(for:) for counts")
        }
    }

    private static func fetchedTypeMismatch(_ object: ManagedObject, _ type: Any.Type) -> ObjectStackError {
        ObjectStackError.typeMismatch(
            "fetched \(object.entity.name) objects are \(Swift.type(of: object)), not \(type)")
    }

    /// The number of objects a fetch would return, unsaved changes included.
    public func count<T: FetchRequestResult>(for request: FetchRequest<T>) throws -> Int {
        assertOnQueue("count(for:)")
        if let aggregate = try AggregateFetchPlan(request: request, model: model, resultClass: T.self) {
            return try aggregateRows(aggregate).count
        }
        var countRequest = request
        countRequest.resultType = .count
        let plan = try FetchPlan(request: countRequest, model: model, resultClass: T.self)
        switch try execute(plan) {
        case .count(let count): return count
        case .objects(let objects): return objects.count
        case .objectIDs(let ids): return ids.count
        case .dictionaries(let rows): return rows.count
        }
    }

    enum FetchOutcome {
        case objects([ManagedObject])
        case objectIDs([ManagedObjectID])
        case dictionaries([[String: Any]])
        case count(Int)
    }

    func execute(_ plan: FetchPlan) throws -> FetchOutcome {
        processPendingChanges()
        let entity = plan.store.entity
        let pending = plan.includesPendingChanges && plan.resultType != .dictionary && hasPendingChanges(of: entity)
        if !pending {
            guard plan.batchSize > 0, case .objects = plan.store.resultType else { return try fetchFromStore(plan) }
            // Batched: IDs now, rows a batch at a time as faults fire.
            var idPlan = plan
            idPlan.store.resultType = .objectIDs
            guard case .objectIDs(let ids) = try fetchFromStore(idPlan) else { return .objects([]) }
            let objects = ids.map { object(with: $0) }
            let batch = FaultBatch(objectIDs: ids, size: plan.batchSize)
            for object in objects where object.isFault { object.faultBatch = batch }
            try prefetch(plan.prefetch, for: objects)
            return .objects(objects)
        }
        return try fetchWithPendingChanges(plan)
    }

    /// A fetch of an entity that has unsaved changes in this context, as Core Data does it: the store answers
    /// for the rows this context has not changed (its predicate, order and limit applied there), and only
    /// the changed, inserted and deleted objects are matched and placed in memory on their current values.
    /// - Complexity: the store's fetch (with the limit raised by the number of changed and deleted objects),
    ///   plus O(c log c) for c changed and inserted objects and a merge of the two ordered lists.
    private func fetchWithPendingChanges(_ plan: FetchPlan) throws -> FetchOutcome {
        let kinds = Set(plan.store.candidateEntities.map(ObjectIdentifier.init))
        func isCandidate(_ object: ManagedObject) -> Bool { kinds.contains(ObjectIdentifier(object.entity)) }
        // The store's answer for these rows is stale: they are left out of it and judged here instead.
        var stale: Set<ManagedObjectID> = []
        for object in deletedSet where isCandidate(object) { stale.insert(object.objectID) }
        var changed: [ManagedObject] = []
        for object in changedSet where isCandidate(object) && object.hasPersistentChanges && !object.insertedFlag {
            stale.insert(object.objectID)
            if !object.deletedFlag { changed.append(object) }
        }
        var storeRequest = plan.store
        storeRequest.fetchOffset = 0
        if plan.store.fetchLimit > 0 {
            storeRequest.fetchLimit = plan.store.fetchOffset + plan.store.fetchLimit + stale.count
        }
        let counting = plan.resultType == .count
        storeRequest.resultType = counting ? .objectIDs : .objects
        var saved: [ManagedObject] = []
        var savedCount = 0
        switch try storeResult(storeRequest) {
        case .objectIDs(let ids):
            savedCount = ids.lazy.filter { !stale.contains($0) }.count
        case .objects(let pairs):
            saved.reserveCapacity(pairs.count)
            for (id, snapshot) in pairs where !stale.contains(id) {
                let object = self.object(with: id)
                if object.isFault, !plan.returnsObjectsAsFaults { materialize(object, with: snapshot) }
                if object.deletedFlag { continue }
                saved.append(object)
            }
        default:
            break
        }
        let evaluator = PredicateEvaluator(resolver: ContextResolver(context: self))
        var pending = changed + insertedSet.filter { !$0.deletedFlag && isCandidate($0) }
        if let predicate = plan.store.predicate {
            pending = try pending.filter { try evaluator.evaluate(predicate, on: $0) }
        }
        if counting {
            let total = savedCount + pending.count
            let afterOffset = max(total - plan.store.fetchOffset, 0)
            return .count(plan.store.fetchLimit > 0 ? min(afterOffset, plan.store.fetchLimit) : afterOffset)
        }
        let sortKeys = plan.store.sortKeys
        // Ties (and fetches without sort keys) go in primary-key order, new objects after saved ones.
        func tieOrder(_ a: ManagedObject, _ b: ManagedObject) -> Bool {
            a.objectID.isTemporaryID == b.objectID.isTemporaryID
                ? a.objectID.key < b.objectID.key : !a.objectID.isTemporaryID
        }
        func keys(_ object: ManagedObject) throws -> [StoreValue] {
            try sortKeys.map { try evaluator.value(of: $0.keyPath, on: object) }
        }
        let keyed = try pending.map { ($0, try keys($0)) }.sorted { a, b in
            let order = ValueComparison.compareSortKeys(a.1, b.1, sortKeys)
            return order == .orderedSame ? tieOrder(a.0, b.0) : order == .orderedAscending
        }
        let wanted = plan.store.fetchLimit > 0 ? plan.store.fetchOffset + plan.store.fetchLimit : Int.max
        var merged: [ManagedObject] = []
        merged.reserveCapacity(min(wanted, saved.count + keyed.count))
        var next = saved.startIndex
        var nextKeys: [StoreValue]?
        for (object, objectKeys) in keyed {
            while merged.count < wanted, next < saved.endIndex {
                // Only a saved object's position relative to a pending one needs its sort keys read.
                if nextKeys == nil { nextKeys = try keys(saved[next]) }
                let order = ValueComparison.compareSortKeys(nextKeys!, objectKeys, sortKeys)
                guard order == .orderedAscending || (order == .orderedSame && tieOrder(saved[next], object)) else {
                    break
                }
                merged.append(saved[next])
                next += 1
                nextKeys = nil
            }
            guard merged.count < wanted else { break }
            merged.append(object)
        }
        merged += saved[next...].prefix(max(wanted - merged.count, 0))
        let window = Array(merged.dropFirst(plan.store.fetchOffset))
        try prefetch(plan.prefetch, for: window)
        return .objects(window)
    }

    private func hasPendingChanges(of entity: EntityDescription) -> Bool {
        let touches = { (object: ManagedObject) in object.entity.isKind(of: entity) }
        return insertedSet.contains(where: touches) || deletedSet.contains(where: touches)
            || changedSet.contains { touches($0) && $0.hasPersistentChanges }
    }

    private func storeResult(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        try parentFetch(request)
    }

    private func fetchFromStore(_ plan: FetchPlan) throws -> FetchOutcome {
        // Read before the fetch: a row changed after this reading makes the faults look the row up again.
        let generation =
            plan.returnsObjectsAsFaults && parentStorage == nil && stalenessInterval < 0
                && queryGenerationStorage == nil
            ? coordinatorStorage?.rowCacheGeneration.current : nil
        // A root context stores the fetched rows in the coordinator's cache itself, with its hold on the rows of
        // the objects it registers: one lookup per row.
        // (A pinned context's rows are of its generation: they stay out of the shared cache.)
        let cache = parentStorage == nil && queryGenerationStorage == nil ? coordinatorStorage?.rowCache : nil
        if case .objects = plan.store.resultType, cache != nil, let objects = try streamFromStore(plan, generation) {
            return .objects(objects)
        }
        switch try parentFetch(plan.store, cachingRows: cache == nil) {
        case .count(let count):
            return .count(count)
        case .values(let rows):
            return .dictionaries(
                rows.map { values in
                    var dictionary: [String: Any] = [:]
                    for (index, value) in values.enumerated() {
                        let (name, attribute) = plan.dictionaryKeys[index]
                        dictionary[name] =
                            attribute.map { $0.type.object(from: value) }
                            ?? {
                                if case .objectID(let id) = value { return id }
                                return nil
                            }()
                    }
                    return dictionary
                })
        case .objectIDs(let ids):
            return .objectIDs(ids)
        case .objects(let pairs):
            var objects: [ManagedObject] = []
            objects.reserveCapacity(pairs.count)
            registered.reserveCapacity(registered.count + pairs.count)
            func register(_ id: ManagedObjectID, _ snapshot: RowSnapshot) -> Bool {
                registerFetched(id, snapshot, materializing: !plan.returnsObjectsAsFaults, generation, into: &objects)
            }
            if let cache {
                // One pass: each row is cached, with this context's hold when its object is new, while the row
                // is at hand (a second pass over 100,000 rows missed the processor's cache on every one).
                cache.withLock { rows in
                    rows.reserveCapacity(pairs.count)
                    let now = RowCacheInstant.now
                    for (id, snapshot) in pairs {
                        let isNew = register(id, snapshot)
                        rows.store(snapshot, for: id, at: now, references: isNew ? 1 : 0)
                    }
                }
            } else {
                var created: [ManagedObjectID] = []
                for (id, snapshot) in pairs where register(id, snapshot) { created.append(id) }
                // A child's rows come from its parent; one lock counts this context's hold on every new row (a
                // lock per object showed in fetch profiles).
                coordinatorStorage?.rowCache.withLock { cache in created.forEach { cache.retain($0, snapshot: nil) } }
            }
            try prefetch(plan.prefetch, for: objects)
            return .objects(objects)
        }
    }

    /// Registers the object of a fetched row (a new fault unless registered) and appends it to `objects`; true
    /// when it is new. A fault gets its row now, or keeps it for when it fires.
    @inline(__always)
    private func registerFetched(
        _ id: ManagedObjectID, _ snapshot: RowSnapshot, materializing: Bool, _ generation: UInt64?,
        into objects: inout [ManagedObject]
    ) -> Bool {
        func fill(_ fault: ManagedObject) {
            if materializing {
                materialize(fault, with: snapshot)
            } else if let generation {
                fault.fetchedRow = snapshot
                fault.fetchedGeneration = generation
            }
        }
        let (object, isNew) = registered.object(for: id) { makeFault(id) }
        if isNew {
            object.managedObjectContext = self
            fill(object)
        } else if object.isFault {
            fill(object)
        }
        objects.append(object)
        return isNew
    }

    /// A root context's object fetch from a streaming store: each chunk of rows is registered, and cached with
    /// this context's hold on the new ones, before the store reads the next. Nil when the store does not stream.
    ///
    /// Nothing in a chunk's registration calls back into the store: objects fetched fully (not as faults) get
    /// their rows here and `awakeFromFetch` once the store's read is over.
    private func streamFromStore(_ plan: FetchPlan, _ generation: UInt64?) throws -> [ManagedObject]? {
        guard let coordinator = coordinatorStorage else { return nil }
        let cache = coordinator.rowCache
        var objects: [ManagedObject] = []
        var awaking: [ManagedObject] = []
        let fillsRows = !plan.returnsObjectsAsFaults
        let streamed: Bool
        do {
            var reserved = false
            streamed = try coordinator.fetchObjects(plan.store) { chunk, rowsLeft in
                // Room for every row at once when the store knows how many come; otherwise the tables grow as
                // they fill, doubling (reserving room chunk by chunk resized them far more often).
                if !reserved, let rowsLeft {
                    reserved = true
                    objects.reserveCapacity(chunk.count + rowsLeft)
                    registered.reserveCapacity(registered.count + chunk.count + rowsLeft)
                    cache.withLock { $0.reserveCapacity(chunk.count + rowsLeft) }
                }
                cache.withLock { rows in
                    let now = RowCacheInstant.now
                    for (id, snapshot) in chunk {
                        // Registered as a fault (no user code runs); a fully fetched one gets its row after.
                        let isNew = registerFetched(
                            id, snapshot, materializing: false, fillsRows ? nil : generation, into: &objects)
                        rows.store(snapshot, for: id, at: now, references: isNew ? 1 : 0)
                        if fillsRows, let object = objects.last, object.isFault, fillRow(object, with: snapshot) {
                            awaking.append(object)
                        }
                    }
                }
            }
        } catch let error as StoreError {
            throw ObjectStackError(
                code: .storeFailed, message: "fetch of \(plan.store.entity.name) failed: \(error.message)", cause: error
            )
        }
        guard streamed else { return nil }
        for object in awaking { object.awakeFromFetch() }
        try prefetch(plan.prefetch, for: objects)
        return objects
    }

    /// Reads the destinations of relationship key paths for many objects: one store request per step.
    private func prefetch(_ paths: [[RelationshipDescription]], for objects: [ManagedObject]) throws {
        for path in paths {
            var level = objects
            for relationship in path {
                var next: [ManagedObjectID] = []
                if relationship.isToMany {
                    let unread = level.filter { $0.toMany[relationship.index]?.committed == nil && !$0.insertedFlag }
                    let members = try parentRelatedObjectIDs(of: unread.map(\.objectID), through: relationship)
                    for (object, ids) in zip(unread, members) {
                        object.toMany[relationship.index, default: ToManyState()].committed = ids
                    }
                    for object in level { next += object.toManyIDs(relationship) }
                } else {
                    next = level.compactMap { $0.toOneID(relationship) }
                }
                let faults = Array(Set(next)).filter { registered[$0]?.isFault ?? true }.filter { !$0.isTemporaryID }
                let snapshots = try faults.isEmpty ? [] : parentSnapshots(for: faults, fresh: false)
                for (id, snapshot) in zip(faults, snapshots) {
                    guard let snapshot else { continue }
                    let object = object(with: id)
                    if object.isFault { materialize(object, with: snapshot) }
                }
                level = next.map { object(with: $0) }
            }
        }
    }
}

/// A fetch request checked against the model, ready for the store.
struct FetchPlan {
    var store: StoreFetchRequest
    var resultType: FetchResultType
    var includesPendingChanges: Bool
    var returnsObjectsAsFaults: Bool
    var batchSize = 0
    var dictionaryKeys: [(String, AttributeDescription?)] = []
    var prefetch: [[RelationshipDescription]] = []

    /// A plan for a request that is already bound (a child's fetch reaching its parent).
    init(store: StoreFetchRequest) {
        self.store = store
        switch store.resultType {
        case .objects: resultType = .managedObject
        case .objectIDs: resultType = .managedObjectID
        case .values: resultType = .dictionary
        case .count: resultType = .count
        }
        includesPendingChanges = true
        returnsObjectsAsFaults = true
    }

    init<T>(request: FetchRequest<T>, model: ManagedObjectModel, resultClass: T.Type) throws {
        let entity: EntityDescription
        if let name = request.entityName {
            guard let found = model.entitiesByName[name] else {
                throw ObjectStackError(code: .unknownEntity, message: "the model has no entity named '\(name)'")
            }
            entity = found
        } else if let type = resultClass as? ManagedObject.Type, let found = model.entity(for: type) {
            entity = found
        } else {
            throw ObjectStackError(code: .unknownEntity, message: "no entity of the model has class \(resultClass)")
        }
        guard request.fetchLimit >= 0, request.fetchOffset >= 0, request.fetchBatchSize >= 0 else {
            throw ObjectStackError(
                code: .invalidArgument,
                message: "fetchLimit, fetchOffset and fetchBatchSize must not be negative (fetch of \(entity.name))")
        }
        let binder = PredicateBinder(entity: entity)
        let predicate = try request.predicate.map { try binder.bind($0.node) }
        let sortKeys = try request.sortDescriptors.map { key in
            BoundSortKey(
                keyPath: try binder.bindScalarKeyPath(key.key, purpose: "sort key"),
                ascending: key.ascending, caseInsensitive: key.caseInsensitive)
        }
        let resultType: StoreFetchRequest.ResultType
        switch request.resultType {
        case .managedObject: resultType = .objects
        case .managedObjectID: resultType = .objectIDs
        case .count: resultType = .count
        case .dictionary:
            // Key paths, and key paths an expression description renames (an aggregate takes another path).
            let properties =
                try request.propertiesToFetch.map { try Self.keyPathProperties($0.map(\.fetchProperty)) }
                ?? entity.attributes.filter { !$0.isTransient }.map { ($0.name, $0.name) }
            var paths: [BoundKeyPath] = []
            for (key, name) in properties {
                let path = try binder.bindScalarKeyPath(name, purpose: "property to fetch")
                if case .attribute(let attribute)? = path.steps.last, attribute.isTransient {
                    throw ObjectStackError.unknownKeyPath(
                        name, entity: entity.name, detail: "a transient attribute is not stored")
                }
                paths.append(path)
                dictionaryKeys.append((key, path.finalAttribute))
            }
            resultType = .values(paths, distinct: request.returnsDistinctResults)
        }
        store = StoreFetchRequest(
            entity: entity, includesSubentities: request.includesSubentities, predicate: predicate, sortKeys: sortKeys,
            fetchLimit: request.fetchLimit, fetchOffset: request.fetchOffset, resultType: resultType)
        self.resultType = request.resultType
        includesPendingChanges = request.includesPendingChanges
        returnsObjectsAsFaults = request.returnsObjectsAsFaults
        batchSize = request.fetchBatchSize
        prefetch = try request.relationshipKeyPathsForPrefetching.map { text in
            var current = entity
            return try text.split(separator: ".").map { component in
                guard let relationship = current.relationshipsByName[String(component)] else {
                    throw ObjectStackError.unknownKeyPath(
                        text, entity: entity.name, detail: "prefetching needs relationships")
                }
                current = relationship.destinationEntity
                return relationship
            }
        }
    }
}
