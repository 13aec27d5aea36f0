import Foundation

extension ManagedObject {
    // MARK: - Key-value access

    /// The value of a property: an attribute's value, the object of a to-one relationship, or a to-many's
    /// objects (`Set<ManagedObject>`, or `[ManagedObject]` when ordered).
    ///
    /// Numbers come back as `NSNumber`, so `as? Int` and `as? Double` both work, as in Core Data.
    /// A transformable attribute whose value transformer is not registered, or cannot read the stored data
    /// back, reads as nil (the data stays stored as it is); `checkedValue(forKey:)` throws an error saying why.
    /// - Precondition: the entity has a property named `key` (a misspelt key is a programming error,
    ///   as in Core Data); use `entity.property(named:)` to ask first.
    public func value(forKey key: String) -> Any? {
        managedObjectContext?.assertOnQueue("value(forKey: \"\(key)\")")
        if !entity.compositeAttributesByName.isEmpty, let composite = entity.compositeAttributesByName[key] {
            return compositeValue(composite)
        }
        guard let property = entity.property(named: key) else {
            preconditionFailure("entity \(entity.name) has no property named '\(key)'")
        }
        switch property {
        case .attribute(let attribute):
            return attributeObject(attribute)
        case .relationship(let relationship) where relationship.isToMany:
            let objects = toManyIDs(relationship).compactMap { managedObjectContext?.object(with: $0) }
            return relationship.isOrdered ? objects as Any : Set(objects) as Any
        case .relationship(let relationship):
            return toOneID(relationship).flatMap { managedObjectContext?.object(with: $0) }
        }
    }

    /// The value of a property as `value(forKey:)` returns it, with problems thrown instead of trapped: a key
    /// the entity does not have, and a transformable attribute whose value transformer is not registered or
    /// cannot turn the stored data back into a value.
    ///
    /// For example, a model loaded from a file may name a transformer the program has not registered:
    /// ```swift
    /// do { let colour = try item.checkedValue(forKey: "colour") }
    /// catch let error as ObjectStackError where error.code == .transformerMissing { print(error.message) }
    /// ```
    /// - Throws: `ObjectStackError` `.unknownKey`, `.transformerMissing` naming the transformer, or
    ///   `.typeMismatch` with the transformer's error as `cause`.
    public func checkedValue(forKey key: String) throws -> Any? {
        managedObjectContext?.assertOnQueue("checkedValue(forKey: \"\(key)\")")
        if entity.compositeAttributesByName[key] != nil { return value(forKey: key) }
        guard let property = entity.property(named: key) else {
            throw ObjectStackError(code: .unknownKey, message: "entity \(entity.name) has no property named '\(key)'")
        }
        guard case .attribute(let attribute) = property, attribute.type == .transformable,
            case .data(let data) = attributeValue(attribute)
        else { return value(forKey: key) }
        let transformer = try registeredTransformer(of: attribute)
        do {
            return try transformer.reverseTransformedValue(data)
        } catch {
            throw ObjectStackError(
                code: .typeMismatch,
                message:
                    "transformer '\(attribute.valueTransformerName ?? "")' could not read the stored value of \(entity.name).\(attribute.name)",
                cause: error)
        }
    }

    /// Sets a property: an attribute's value, a to-one's object (or nil), or a to-many's objects (a `Set` or
    /// an array of objects). Inverse relationships are kept consistent on both sides at once.
    ///
    /// For example:
    /// ```swift
    /// try book.setValue("Dune", forKey: "title")
    /// try book.setValue(author, forKey: "author")   // author.books now holds book
    /// ```
    /// - Throws: `ObjectStackError` `.unknownKey` for a key the entity does not have, `.typeMismatch` for a
    ///   value that is not of the attribute's type (or does not fit its width), naming the entity and key.
    public func setValue(_ value: Any?, forKey key: String) throws {
        managedObjectContext?.assertOnQueue("setValue(_:forKey: \"\(key)\")")
        if !entity.compositeAttributesByName.isEmpty, let composite = entity.compositeAttributesByName[key] {
            return try setCompositeValue(value, composite)
        }
        guard let property = entity.property(named: key) else {
            throw ObjectStackError(code: .unknownKey, message: "entity \(entity.name) has no property named '\(key)'")
        }
        switch property {
        case .attribute(let attribute):
            guard attribute.derivationExpression == nil else {
                throw ObjectStackError(
                    code: .invalidArgument,
                    message:
                        "\(entity.name).\(key) is derived from '\(attribute.derivationExpression!)' and cannot be set")
            }
            setAttribute(attribute, try storeValue(for: value, attribute: attribute))
        case .relationship(let relationship) where relationship.isToMany:
            let objects: [ManagedObject]
            switch value {
            case nil: objects = []
            case let set as Set<ManagedObject>: objects = Array(set)
            case let array as [ManagedObject]: objects = array
            case let sequence as any Sequence:
                let items = Self.elements(of: sequence)
                let typed = items.compactMap { $0 as? ManagedObject }
                guard typed.count == items.count else { throw relationshipMismatch(relationship, value) }
                objects = typed
            default: throw relationshipMismatch(relationship, value)
            }
            try checkDestination(objects, relationship)
            replaceToMany(relationship, with: objects)
        case .relationship(let relationship):
            guard value == nil || value is ManagedObject else { throw relationshipMismatch(relationship, value) }
            let object = value as? ManagedObject
            try checkDestination(object.map { [$0] } ?? [], relationship)
            setToOne(relationship, to: object?.objectID, maintainInverse: true)
        }
    }

    /// The properties changed since the object was last saved or fetched, with their new values.
    ///
    /// Attributes map to their values (`NSNull()` for nil), to-ones to objects, to-manys to sets.
    public func changedValues() -> [String: Any] {
        var result: [String: Any] = [:]
        for (index, _) in changes {
            let name = entity.properties[index].name
            result[name] = value(forKey: name) ?? NSNull()
        }
        for (index, state) in toMany where state.hasChanges {
            let name = entity.properties[index].name
            result[name] = value(forKey: name) ?? NSNull()
        }
        return result
    }

    /// The values last saved or fetched, for the given keys (nil for every stored property).
    ///
    /// To-ones come back as object IDs, to-manys as arrays of object IDs; nil values as `NSNull()`.
    public func committedValues(forKeys keys: [String]?) -> [String: Any] {
        fireFault()
        let names = keys ?? entity.properties.map(\.name)
        var result: [String: Any] = [:]
        for name in names {
            switch entity.property(named: name) {
            case .attribute(let attribute)?:
                guard let stored = attribute.storedIndex else { continue }
                let value = snapshot?.value(at: stored) ?? .null
                result[name] = attributeObject(attribute, value) ?? NSNull()
            case .relationship(let relationship)? where relationship.isToMany:
                result[name] = committedToMany(relationship)
            case .relationship(let relationship)?:
                if let stored = relationship.storedIndex, case .objectID(let id)? = snapshot?.value(at: stored) {
                    result[name] = id
                } else {
                    result[name] = NSNull()
                }
            case nil:
                continue
            }
        }
        return result
    }

    // MARK: - Attributes

    /// The current store value of an attribute, firing the fault if needed.
    @usableFromInline
    func attributeValue(_ attribute: AttributeDescription) -> StoreValue {
        if attribute.isTransient { return transientValues[attribute.index] ?? attribute.defaultValue }
        return storedAttributeValue(AttributeSlot(attribute))
    }

    /// Whether an attribute has no value now (`attributeValue(_:)` is `.null`), read in place.
    func attributeIsNull(_ attribute: AttributeDescription) -> Bool {
        if attribute.isTransient { return attributeValue(attribute).isNull }
        if let null = changes.isNull(at: attribute.index) { return null }
        fireFault()
        guard let stored = attribute.storedIndex, let snapshot else { return true }
        return snapshot.isNull(at: stored)
    }

    /// The value of a stored attribute at `slot`: its unsaved change, else its row's, firing the fault if needed.
    func storedAttributeValue(_ slot: AttributeSlot) -> StoreValue {
        if let changed = changes[slot.index] { return changed }
        fireFault()
        // The object holds its row for the whole read (decoding a value never replaces it), so the row is read
        // without a retain and a release of its own: a pair per typed read showed in fetch profiles.
        guard let row = snapshot.map(Unmanaged.passUnretained) else { return .null }
        return row._withUnsafeGuaranteedRef { $0.value(at: slot.storedIndex) }
    }

    private func attributeObject(_ attribute: AttributeDescription, _ given: StoreValue? = nil) -> Any? {
        let value = given ?? attributeValue(attribute)
        guard attribute.type == .transformable, case .data(let data) = value else {
            return attribute.type.object(from: value)
        }
        guard let name = attribute.valueTransformerName,
            let transformer = ValueTransformerRegistry.transformer(named: name)
        else {
            return nil
        }
        return try? transformer.reverseTransformedValue(data)
    }

    /// The value transformer a transformable attribute names.
    /// - Throws: `ObjectStackError.transformerMissing` naming the transformer and the attribute.
    private func registeredTransformer(of attribute: AttributeDescription) throws -> any AttributeValueTransformer {
        guard let name = attribute.valueTransformerName,
            let transformer = ValueTransformerRegistry.transformer(named: name)
        else {
            throw ObjectStackError(
                code: .transformerMissing,
                message:
                    "value transformer '\(attribute.valueTransformerName ?? "")' of \(entity.name).\(attribute.name) is not registered"
            )
        }
        return transformer
    }

    /// Converts a Swift value for an attribute, throwing an error that names the culprit.
    func storeValue(for value: Any?, attribute: AttributeDescription) throws -> StoreValue {
        if attribute.type == .transformable, let value, !(value is NSNull) {
            let transformer = try registeredTransformer(of: attribute)
            do {
                return .data(try transformer.transformedValue(value))
            } catch {
                throw ObjectStackError(
                    code: .typeMismatch,
                    message:
                        "transformer '\(attribute.valueTransformerName ?? "")' could not transform the value for \(entity.name).\(attribute.name)",
                    cause: error)
            }
        }
        guard let converted = attribute.type.storeValue(from: value) else {
            throw ObjectStackError.typeMismatch(
                "\(entity.name).\(attribute.name) is a \(attribute.type.rawValue) attribute and cannot hold \(Swift.type(of: value!)) value \(value!)"
            )
        }
        return converted
    }

    /// Sets an attribute's store value and records the change.
    func setAttribute(_ attribute: AttributeDescription, _ value: StoreValue) {
        if attribute.isTransient {
            let context = managedObjectContext
            if let context, let recorder = context.undoRecorder {
                context.recordUndo(of: self, property: attribute.index, in: recorder)
            }
            transientValues[attribute.index] = value
            context?.objectDidChange(self)
            return
        }
        setStored(index: attribute.index, storedIndex: attribute.storedIndex, value)
    }

    /// Sets a stored property's value (already of its type) and records the change.
    func setStored(index: Int, storedIndex: Int?, _ value: StoreValue) {
        if insertedFlag {
            // A new object has nothing committed and is tracked already: no fault, no comparison, no
            // weak load of the context (which showed in insert profiles) — unless observers already saw it.
            // Room for every property at once: growing the table one attribute at a time rehashed it 3-4 times.
            if changes.isEmpty { changes.reserveCapacity(entity.properties.count) }
            guard insertAnnounced, let context = managedObjectContext else {
                changes[index] = value
                return
            }
            // Changed after the insert was processed: a change an undo step records, observers are told of.
            if let recorder = context.undoRecorder { context.recordUndo(of: self, property: index, in: recorder) }
            changes[index] = value
            context.objectDidChange(self)
            return
        }
        fireFault()
        if changes.isEmpty {
            // An entity whose every property is stored starts its changes over the committed row, which the save
            // then writes as it is; others make room for every property at once, as for a new object (an
            // update's changes grew twice for two values).
            if let committed = snapshot, committed.count == entity.properties.count,
                entity.storedProperties.count == entity.properties.count
            {
                // A packed row is decoded once: the object keeps the decoded row (the same version, so the same
                // row) as its snapshot, which the save reads again as the update's committed values.
                let row =
                    committed.isPacked ? RowSnapshot(values: committed.values, version: committed.version) : committed
                if row !== committed { snapshot = row }
                changes.start(over: row.values)
            } else {
                changes.reserveCapacity(entity.properties.count)
            }
        }
        let context = managedObjectContext
        if let context, let recorder = context.undoRecorder {
            context.recordUndo(of: self, property: index, in: recorder)
        }
        let committed = storedIndex.flatMap { stored in snapshot.map { $0.value(at: stored) } }
        if let committed, committed == value {
            changes.remove(index, restoring: committed)
        } else {
            changes[index] = value
        }
        if !deletedFlag { context?.objectDidChange(self) }
    }

    /// Fires the fault: loads the object's row from its context (row cache, then store).
    func fireFault() {
        guard isFault else { return }
        managedObjectContext?.fulfillFault(self)
    }

    // MARK: - Relationships

    /// The ID a to-one relationship refers to now.
    func toOneID(_ relationship: RelationshipDescription) -> ManagedObjectID? {
        let value: StoreValue
        if let changed = changes[relationship.index] {
            value = changed
        } else {
            fireFault()
            guard let stored = relationship.storedIndex, let snapshot, stored < snapshot.count else {
                return nil
            }
            value = snapshot[stored]
        }
        if case .objectID(let id) = value { return id }
        return nil
    }

    /// The IDs a to-many relationship holds now, reading the committed members if needed.
    func toManyIDs(_ relationship: RelationshipDescription) -> [ManagedObjectID] {
        toMany[relationship.index, default: ToManyState()].current(committed: committedToMany(relationship))
    }

    /// The committed members of a to-many relationship, read once from the context's parent store.
    func committedToMany(_ relationship: RelationshipDescription) -> [ManagedObjectID] {
        if let committed = toMany[relationship.index]?.committed { return committed }
        let committed = insertedFlag ? [] : (managedObjectContext?.committedToMany(of: self, relationship) ?? [])
        toMany[relationship.index, default: ToManyState()].committed = committed
        return committed
    }

    /// Sets a to-one relationship, keeping the inverse consistent on the old and new destinations.
    func setToOne(_ relationship: RelationshipDescription, to newID: ManagedObjectID?, maintainInverse: Bool) {
        let oldID = toOneID(relationship)
        guard oldID != newID else { return }
        setStored(
            index: relationship.index, storedIndex: relationship.storedIndex, newID.map(StoreValue.objectID) ?? .null)
        guard maintainInverse, let inverse = relationship.inverse, let context = managedObjectContext else { return }
        if let oldID {
            let old = context.object(with: oldID)
            if inverse.isToMany {
                old.changeToMany(inverse) { $0.remove(objectID) }
            } else if old.toOneID(inverse) == objectID {
                old.setToOne(inverse, to: nil, maintainInverse: false)
            }
        }
        if let newID {
            let new = context.object(with: newID)
            if inverse.isToMany {
                new.changeToMany(inverse) { $0.add(objectID) }
            } else {
                // One-to-one: the new destination's previous partner loses it.
                if let previous = new.toOneID(inverse), previous != objectID {
                    context.object(with: previous).setToOne(relationship, to: nil, maintainInverse: false)
                }
                new.setToOne(inverse, to: objectID, maintainInverse: false)
            }
        }
    }

    /// Adds an object to a to-many relationship, keeping the inverse consistent.
    public func addObject(_ object: ManagedObject, toRelationship key: String) {
        let relationship = toManyRelationship(key)
        precondition(
            (try? checkDestination([object], relationship)) != nil,
            "\(object.entity.name) cannot be added to \(entity.name).\(key) (destination \(relationship.destinationName))"
        )
        add(object, to: relationship)
    }

    /// Removes an object from a to-many relationship, keeping the inverse consistent.
    public func removeObject(_ object: ManagedObject, fromRelationship key: String) {
        remove(object, from: toManyRelationship(key))
    }

    private func toManyRelationship(_ key: String) -> RelationshipDescription {
        managedObjectContext?.assertOnQueue("to-many access \"\(key)\"")
        guard let relationship = entity.relationshipsByName[key], relationship.isToMany else {
            preconditionFailure("entity \(entity.name) has no to-many relationship named '\(key)'")
        }
        return relationship
    }

    func add(_ object: ManagedObject, to relationship: RelationshipDescription) {
        if let inverse = relationship.inverse, !inverse.isToMany {
            // The inverse to-one's setter moves the object from its old owner and adds it here.
            object.setToOne(inverse, to: objectID, maintainInverse: true)
            return
        }
        changeToMany(relationship) { $0.add(object.objectID) }
        if let inverse = relationship.inverse { object.changeToMany(inverse) { $0.add(objectID) } }
    }

    func remove(_ object: ManagedObject, from relationship: RelationshipDescription) {
        if let inverse = relationship.inverse, !inverse.isToMany, object.toOneID(inverse) == objectID {
            object.setToOne(inverse, to: nil, maintainInverse: true)
            return
        }
        changeToMany(relationship) { $0.remove(object.objectID) }
        if let inverse = relationship.inverse, inverse.isToMany { object.changeToMany(inverse) { $0.remove(objectID) } }
    }

    /// Replaces the members of a to-many relationship, adding and removing through the inverse.
    func replaceToMany(_ relationship: RelationshipDescription, with objects: [ManagedObject]) {
        let current = toManyIDs(relationship)
        let wanted = Set(objects.map(\.objectID))
        for id in current where !wanted.contains(id) {
            if let context = managedObjectContext { remove(context.object(with: id), from: relationship) }
        }
        let present = Set(current)
        for object in objects where !present.contains(object.objectID) { add(object, to: relationship) }
    }

    /// Changes a to-many's deltas and records the change with the context.
    func changeToMany(_ relationship: RelationshipDescription, _ change: (inout ToManyState) -> Void) {
        let context = managedObjectContext
        if let context, let recorder = context.undoRecorder {
            context.recordUndo(of: self, property: relationship.index, in: recorder)
        }
        // Only deltas are recorded: a fault's committed members are read if someone asks for them.
        change(&toMany[relationship.index, default: ToManyState()])
        context?.objectDidChange(self)
    }

    private func checkDestination(_ objects: [ManagedObject], _ relationship: RelationshipDescription) throws {
        for object in objects where !object.entity.isKind(of: relationship.destinationEntity) {
            throw ObjectStackError.typeMismatch(
                "\(entity.name).\(relationship.name) holds \(relationship.destinationName) objects, not \(object.entity.name)"
            )
        }
        for object in objects where object.managedObjectContext !== managedObjectContext {
            throw ObjectStackError(
                code: .invalidArgument,
                message:
                    "\(object.entity.name) \(object.objectID) belongs to another context than \(entity.name) \(objectID)"
            )
        }
    }

    private static func elements(of sequence: some Sequence) -> [Any] {
        sequence.map { $0 as Any }
    }

    private func relationshipMismatch(_ relationship: RelationshipDescription, _ value: Any?) -> ObjectStackError {
        let given = value.map { "\(Swift.type(of: $0))" } ?? "nil"
        let expected =
            relationship.isToMany
            ? "a set or array of \(relationship.destinationName) objects"
            : "a \(relationship.destinationName) object or nil"
        return ObjectStackError.typeMismatch("\(entity.name).\(relationship.name) takes \(expected), not \(given)")
    }
}
