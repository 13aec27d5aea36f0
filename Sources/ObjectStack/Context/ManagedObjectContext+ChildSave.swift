import Foundation

/// A child context's save as its parent receives it: rows by object, the values the child read, links.
struct ChildSave {
    struct Update {
        var objectID: ManagedObjectID
        /// The object's values now, by `storedIndex`.
        var values: [StoreValue]
        /// The values the child read from the parent, by `storedIndex` (nil if never read).
        var cached: [StoreValue]?
        /// The stored indexes the child changed.
        var changed: [Int]
    }

    struct LinkChange {
        var source: ManagedObjectID
        var relationship: RelationshipDescription
        var added: [ManagedObjectID]
        var removed: [ManagedObjectID]
    }

    var inserts: [(objectID: ManagedObjectID, values: [StoreValue])] = []
    var updates: [Update] = []
    var deletes: [ManagedObjectID] = []
    var links: [LinkChange] = []
    var policy: MergePolicy

    var ids: ContextDidSave {
        ContextDidSave(
            inserted: Set(inserts.map(\.objectID)), updated: Set(updates.map(\.objectID)), deleted: Set(deletes))
    }
}

extension ManagedObjectContext {
    // MARK: - Saving into the parent

    /// Pushes the child's changes into its parent (the store is unchanged until the parent saves).
    func saveIntoParent(_ parent: ManagedObjectContext) throws {
        var save = ChildSave(policy: mergePolicy)
        for object in insertedSet { save.inserts.append((object.objectID, rowValues(of: object))) }
        for object in updatesToSave {
            object.fireFault()
            let changed = object.changes.keys.compactMap(object.entity.storedIndex(ofProperty:))
            save.updates.append(
                .init(
                    objectID: object.objectID, values: rowValues(of: object),
                    cached: object.snapshot?.values, changed: changed))
        }
        save.deletes = deletedSet.map(\.objectID)
        for object in insertedSet.union(changedSet) where !object.deletedFlag {
            for (index, state) in object.toMany where state.hasChanges {
                guard case .relationship(let relationship) = object.entity.properties[index],
                    relationship.storage == .joinTable
                else { continue }
                save.links.append(
                    .init(
                        source: object.objectID, relationship: relationship,
                        added: state.added, removed: Array(state.removed)))
            }
        }
        let rows = try parent.performAndWait { try parent.applyChildSave(save, from: self) }
        for (id, row) in rows { registered[id]?.snapshot = row }
        finishSave()
    }

    /// Applies a child's save to this context's objects, resolving conflicts with the child's merge policy.
    /// - Returns: the resulting row of each inserted and updated object, for the child to take as committed.
    func applyChildSave(_ save: ChildSave, from child: ManagedObjectContext) throws -> [ManagedObjectID: RowSnapshot] {
        var conflicted: [ManagedObjectID: [StoreValue]] = [:]
        var conflicts: [MergeConflict] = []
        for update in save.updates {
            let object = object(with: update.objectID)
            object.fireFault()
            let current = object.isInaccessible || object.deletedFlag ? nil : rowValues(of: object)
            guard let cached = update.cached, current != cached else { continue }
            conflicted[update.objectID] = current ?? []
            let names = object.entity.storedProperties.map(\.name)
            conflicts.append(
                MergeConflict(
                    objectID: update.objectID, cachedVersion: object.snapshot?.version ?? 0,
                    storeVersion: current == nil ? nil : object.snapshot?.version,
                    cachedValues: Dictionary(uniqueKeysWithValues: zip(names, cached)),
                    storeValues: current.map { Dictionary(uniqueKeysWithValues: zip(names, $0)) },
                    objectValues: Dictionary(uniqueKeysWithValues: zip(names, update.values))))
        }
        if !conflicts.isEmpty, save.policy == .error {
            var error = ObjectStackError(
                code: .mergeConflict,
                message: "\(conflicts.count) object(s) changed in the parent context since the child read them: "
                    + conflicts.map(\.description).joined(separator: "; "))
            error.mergeConflicts = conflicts
            throw error
        }
        var inserted: [(ManagedObject, [StoreValue])] = []
        for (id, values) in save.inserts {
            let object = id.entity.managedObjectClass.init(entity: id.entity, insertInto: nil)
            object.objectID = id
            insert(object, awake: false)
            for case .attribute(let attribute) in id.entity.storedProperties {
                object.changes[attribute.index] = values[attribute.storedIndex!]
            }
            inserted.append((object, values))
        }
        for (object, values) in inserted {
            for case .toOne(let relationship) in object.entity.storedProperties {
                if case .objectID(let target) = values[relationship.storedIndex!] {
                    object.setToOne(relationship, to: resolved(target), maintainInverse: true)
                }
            }
        }
        for update in save.updates {
            let object = object(with: update.objectID)
            let indexes: [Int]
            if let current = conflicted[update.objectID] {
                switch save.policy {
                case .error, .mergeByPropertyObjectTrump: indexes = update.changed
                case .mergeByPropertyStoreTrump:
                    indexes = update.changed.filter { current.isEmpty || current[$0] == update.cached?[$0] }
                case .overwrite: indexes = Array(update.values.indices)
                case .rollback: indexes = []
                }
                if current.isEmpty { continue }  // deleted in the parent: nothing to update
            } else {
                indexes = update.changed
            }
            for index in indexes {
                switch object.entity.storedProperties[index] {
                case .attribute(let attribute): object.setAttribute(attribute, update.values[index])
                case .toOne(let relationship):
                    let target: ManagedObjectID?
                    if case .objectID(let id) = update.values[index] { target = resolved(id) } else { target = nil }
                    object.setToOne(relationship, to: target, maintainInverse: true)
                }
            }
        }
        for change in save.links {
            let source = object(with: change.source)
            for id in change.added { source.add(object(with: id), to: change.relationship) }
            for id in change.removed { source.remove(object(with: id), from: change.relationship) }
        }
        for id in save.deletes where !(conflicted[id] != nil && save.policy == .rollback) {
            delete(object(with: id))
        }
        processPendingChanges()
        var rows: [ManagedObjectID: RowSnapshot] = [:]
        for id in save.inserts.map(\.objectID) + save.updates.map(\.objectID) {
            if let row = rowForChild(object(with: id)) { rows[id] = row }
        }
        announce(save.ids, except: child)
        return rows
    }
}
