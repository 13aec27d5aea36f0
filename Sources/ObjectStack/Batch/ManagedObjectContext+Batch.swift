import Foundation

extension ManagedObjectContext {
    // MARK: - Batch requests

    /// Runs a request on the context's store directly, without managed objects: Core Data's
    /// `execute(_:)`. Returns the request's result class (`BatchInsertResult`, `BatchUpdateResult`,
    /// `BatchDeleteResult`); the typed overloads return it without a cast.
    ///
    /// For example:
    /// ```swift
    /// let result = try context.execute(BatchDeleteRequest(fetchRequest: fetch)) as? BatchDeleteResult
    /// ```
    /// - Note: Call it on the context's queue. Objects registered in any context are left as they were: merge the
    ///   changes with `mergeChanges(fromRemoteContextSave:into:)`.
    /// - Throws: `ObjectStackError`; a request that fails writes nothing.
    public func execute(_ request: any PersistentStoreRequest) throws -> PersistentStoreResult {
        switch request {
        case let insert as BatchInsertRequest: return try execute(insert)
        case let update as BatchUpdateRequest: return try execute(update)
        case let delete as BatchDeleteRequest: return try execute(delete)
        case let history as PersistentHistoryChangeRequest: return try execute(history)
        default:
            throw ObjectStackError(
                code: .invalidArgument,
                message: "a context cannot execute a \(type(of: request)) (\(request.requestType))")
        }
    }

    /// Inserts a batch insert request's objects as rows, in one store transaction; see `BatchInsertRequest`.
    ///
    /// For example:
    /// ```swift
    /// let result = try context.execute(BatchInsertRequest(entityName: "Pod", objects: specs))
    /// ```
    /// - Complexity: O(n) in the objects, plus the store's writes; no managed object is made (but one per handler
    ///   call for a managed-object handler).
    /// - Throws: `ObjectStackError` naming the object (`objectIndex`) and key at fault for bad input,
    ///   `.constraintConflict` for repeated constrained values under `.error`, `.storeFailed` for the store's
    ///   failures. Nothing is written when it throws.
    @discardableResult
    public func execute(_ request: BatchInsertRequest) throws -> BatchInsertResult {
        assertOnQueue("execute(_:) (batch insert)")
        let entity = try batchEntity(request.entityName, "batch insert")
        let merging = mergePolicy != .error && !entity.applicableUniquenessConstraints.isEmpty
        var builder = BatchRowBuilder(
            entity: entity, tracksGivenKeys: merging, capacity: request.objectsToInsert?.count ?? 0)
        if let objects = request.objectsToInsert {
            for object in objects { try builder.append(object) }
        } else if let handler = request.dictionaryHandler {
            while true {
                var values: [String: Any] = [:]
                if handler(&values) { break }
                try builder.append(values)
            }
        } else if let handler = request.managedObjectHandler {
            while true {
                let object = entity.managedObjectClass.init(entity: entity, insertInto: nil)
                if handler(object) { break }
                try builder.append(object)
            }
        }
        let plan = BatchInsertPlan(
            rows: builder.rows, given: builder.given, mergePolicy: mergePolicy,
            wantsIDs: request.resultType == .objectIDs)
        let changes = try runBatch(entity, rowsHint: builder.count, "batch insert") { try plan.run($0) }
        return BatchInsertResult(resultType: request.resultType, changes: changes)
    }

    /// Sets the request's values on every row it matches, in one store transaction; see `BatchUpdateRequest`.
    ///
    /// For example:
    /// ```swift
    /// var request = BatchUpdateRequest(entityName: "Pod")
    /// request.propertiesToUpdate = ["license": "MIT", "downloads": try PropertyExpression(format: "downloads + 1")]
    /// try context.execute(request)
    /// ```
    /// - Complexity: one statement on SQLite; elsewhere a fetch of the matching rows and an update of each.
    /// - Throws: `ObjectStackError`: `.unknownKey`, `.unknownKeyPath`, `.invalidArgument`, `.typeMismatch` naming the
    ///   key (and expression) at fault, before anything is written; `.typeMismatch` or `.validationFailed` naming
    ///   the row whose computed value its attribute cannot hold; `.constraintConflict` when the new values would
    ///   clash; `.storeFailed`. Nothing is written when it throws.
    @discardableResult
    public func execute(_ request: BatchUpdateRequest) throws -> BatchUpdateResult {
        assertOnQueue("execute(_:) (batch update)")
        let entity = try batchEntity(request.entityName, "batch update", allowsAbstract: true)
        guard let properties = request.propertiesToUpdate, !properties.isEmpty else {
            throw ObjectStackError(
                code: .invalidArgument,
                message: "batch update of \(entity.name) refused: it names no property to update")
        }
        let assignments = try properties.sorted { $0.key < $1.key }.map { key, value in
            try batchUpdateAssignment(value, forKey: key, of: entity)
        }
        var fetch = FetchRequest<ManagedObject>(entityName: entity.name)
        fetch.predicate = request.predicate
        fetch.includesSubentities = request.includesSubentities
        let store = try FetchPlan(request: fetch, model: model, resultClass: ManagedObject.self).store
        let plan = BatchUpdatePlan(
            update: StoreBatchUpdate(fetch: store, assignments: assignments, now: Date()), fetch: store,
            wantsIDs: request.resultType == .updatedObjectIDs)
        let changes = try runBatch(entity, rowsHint: 0, "batch update") { try plan.run($0) }
        return BatchUpdateResult(resultType: request.resultType, changes: changes)
    }

    /// Deletes the rows the request names, with the delete rules Core Data applies to batch deletes, in one store
    /// transaction; see `BatchDeleteRequest`.
    ///
    /// For example:
    /// ```swift
    /// try context.execute(BatchDeleteRequest(objectIDs: ids))
    /// ```
    /// - Complexity: a fetch of the matching rows, a read of each relationship the rules follow, a delete of each
    ///   row.
    /// - Throws: `ObjectStackError`: `.invalidArgument` for a deny rule or IDs of several entities;
    ///   `.validationFailed` when a nullify rule would empty a required relationship; `.storeFailed`. Nothing is
    ///   deleted when it throws.
    @discardableResult
    public func execute(_ request: BatchDeleteRequest) throws -> BatchDeleteResult {
        assertOnQueue("execute(_:) (batch delete)")
        let wantsIDs = request.resultType == .objectIDs
        let entity: EntityDescription
        let plan: BatchDeletePlan
        if let ids = request.objectIDs {
            guard let first = ids.first else {
                return BatchDeleteResult(resultType: request.resultType, changes: BatchChanges())
            }
            entity = try batchEntity(first.entityName, "batch delete")
            if let other = ids.first(where: { $0.entityName != first.entityName || $0.isTemporaryID }) {
                throw ObjectStackError(
                    code: .invalidArgument,
                    message: other.isTemporaryID
                        ? "batch delete refused: \(other) is a temporary ID, of an object not saved yet"
                        : "batch delete refused: the IDs name objects of several entities (\(first.entityName), "
                            + "\(other.entityName)); one request deletes one entity's objects, as in Core Data")
            }
            try BatchDeletePlan.checkRules(deleting: [entity])
            // IDs from a separate stack name their own model's entity: the store reads this model's.
            let own = ids.map { id in
                id.entity === entity
                    ? id : ManagedObjectID(entity: entity, storeIdentifier: id.storeIdentifier, primaryKey: id.key)
            }
            plan = BatchDeletePlan(target: .objectIDs(own), wantsIDs: wantsIDs)
        } else {
            let name =
                request.entityName.isEmpty
                ? request.entityNameFromResult.flatMap { model.entity(for: $0)?.name } ?? "" : request.entityName
            entity = try batchEntity(name, "batch delete", allowsAbstract: true)
            var fetch = FetchRequest<ManagedObjectID>(entityName: entity.name)
            fetch.predicate = request.predicate
            fetch.sortDescriptors = request.sortDescriptors
            fetch.fetchLimit = request.fetchLimit
            fetch.fetchOffset = request.fetchOffset
            fetch.includesSubentities = request.includesSubentities
            let store = try FetchPlan(request: fetch, model: model, resultClass: ManagedObjectID.self).store
            try BatchDeletePlan.checkRules(deleting: store.candidateEntities)
            plan = BatchDeletePlan(target: .fetch(store), wantsIDs: wantsIDs)
        }
        let changes = try runBatch(entity, rowsHint: 0, "batch delete") { try plan.run($0) }
        return BatchDeleteResult(resultType: request.resultType, changes: changes)
    }

    // MARK: - Helpers

    /// The entity a batch request names.
    private func batchEntity(_ name: String, _ what: String, allowsAbstract: Bool = false) throws -> EntityDescription {
        guard let entity = model.entitiesByName[name] else {
            throw ObjectStackError(
                code: .unknownEntity, message: "\(what) refused: the model has no entity named '\(name)'")
        }
        guard allowsAbstract || !entity.isAbstract else {
            throw ObjectStackError(
                code: .invalidArgument,
                message: "\(what) refused: entity \(name) is abstract and has no rows of its own")
        }
        return entity
    }

    /// What a batch update sets an attribute of `entity` to: a constant of the attribute's type, or a
    /// `PropertyExpression` bound to the entity, reading only the row's own attributes, of a type that fits.
    private func batchUpdateAssignment(_ value: Any, forKey key: String, of entity: EntityDescription) throws
        -> StoreBatchUpdate.Assignment
    {
        guard let expression = value as? PropertyExpression else {
            let constant = try batchUpdateValue(value, forKey: key, of: entity)
            return .init(
                attribute: entity.attributesByName[key]!, value: .operand(.constant(constant)),
                source: constant.description)
        }
        func refuse(_ code: ObjectStackError.Code, _ message: String) -> ObjectStackError {
            var error = ObjectStackError(
                code: code,
                message:
                    "batch update of \(entity.name) refused, nothing written: '\(expression)' for \(key) \(message)")
            error.key = key
            return error
        }
        let attribute = try batchAttribute(key, of: entity)
        let bound: BoundPropertyExpression
        do {
            bound = try expression.bound(to: entity)
        } catch let error as ObjectStackError {
            throw refuse(error.code, "does not bind: \(error.message)")
        }
        if let constant = bound.constantValue {
            // A constant written as an expression is checked as any constant is.
            return .init(
                attribute: attribute,
                value: .operand(.constant(try batchUpdateValue(constant, forKey: key, of: entity))),
                source: expression.description)
        }
        if let path = bound.keyPaths.first(where: {
            $0.variable != nil || $0.steps.count != 1 || $0.finalAttribute == nil
        }) {
            throw refuse(
                .invalidArgument,
                "reads '\(path)', which is not an attribute of the row; a batch update's expressions read the row's "
                    + "own attributes, as Core Data's SQL update does")
        }
        let type = ExpressionResultType.of(bound)
        guard type.fits(attribute.type) else {
            throw refuse(
                .typeMismatch,
                "yields \(type == .object ? "an object" : type.name), which \(entity.name).\(key), "
                    + "\(ExpressionResultType.typeName(attribute.type)), cannot hold")
        }
        return .init(attribute: attribute, value: bound, source: expression.description)
    }

    /// The stored attribute a batch update names; throws naming the key for anything else.
    private func batchAttribute(_ key: String, of entity: EntityDescription) throws -> AttributeDescription {
        _ = try batchUpdateValue(StoreValue.null, forKey: key, of: entity, checkingValue: false)
        return entity.attributesByName[key]!
    }

    /// A batch update's value for an attribute of `entity`, of the attribute's type.
    private func batchUpdateValue(
        _ value: Any, forKey key: String, of entity: EntityDescription, checkingValue: Bool = true
    ) throws -> StoreValue {
        func refuse(_ code: ObjectStackError.Code, _ message: String) -> ObjectStackError {
            var error = ObjectStackError(
                code: code, message: "batch update of \(entity.name) refused, nothing written: \(message)")
            error.key = key
            return error
        }
        guard let attribute = entity.attributesByName[key] else {
            if entity.relationshipsByName[key] != nil {
                throw refuse(
                    .invalidArgument, "'\(key)' is a relationship of \(entity.name); batch updates set attributes only")
            }
            throw refuse(.unknownKey, "entity \(entity.name) has no attribute named '\(key)'")
        }
        guard !attribute.isTransient, attribute.derivationExpression == nil else {
            throw refuse(
                .invalidArgument,
                "\(entity.name).\(key) is \(attribute.isTransient ? "transient, never stored" : "derived at save")")
        }
        guard checkingValue else { return .null }
        var builder = BatchRowBuilder(entity: entity, tracksGivenKeys: false, capacity: 0)
        builder.describesObjects = false
        let converted: StoreValue
        do {
            converted = try builder.convertValue(value, forKey: key)
        } catch let error as ObjectStackError {
            throw refuse(error.code, error.message)
        }
        if converted.isNull, !attribute.isOptional {
            throw refuse(.validationFailed, "\(entity.name).\(key) is required and cannot be set to nil")
        }
        return converted
    }

    /// Runs a batch plan on the coordinator, with store failures as the context's errors.
    private func runBatch(
        _ entity: EntityDescription, rowsHint: Int, _ what: String,
        _ body: @escaping (any StoreBatchTransaction) throws -> BatchChanges
    ) throws -> BatchChanges {
        do {
            return try coordinator.executeBatch(
                for: entity, rowsHint: rowsHint, author: HistoryAuthor(author: transactionAuthor, contextName: name),
                body)
        } catch let error as StoreError {
            if error.code == .constraintConflict {
                var result = ObjectStackError(
                    code: .constraintConflict, message: "\(what) failed, nothing written: \(error.message)",
                    cause: error)
                result.constraintConflicts = error.constraintConflicts
                throw result
            }
            throw ObjectStackError(
                code: .storeFailed, message: "\(what) failed, nothing written: \(error.message)", cause: error)
        }
    }
}
