import Foundation

/// A child context's save as its parent receives it: rows by object, what the child changed, links.
struct ChildSave {
    struct Update {
        var objectID: ManagedObjectID
        /// The object's values now, by `storedIndex`.
        var values: [StoreValue]
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

    var ids: ContextDidSave {
        ContextDidSave(
            inserted: Set(inserts.map(\.objectID)), updated: Set(updates.map(\.objectID)), deleted: Set(deletes))
    }
}

extension ManagedObjectContext {
    // MARK: - Saving into the parent

    /// Pushes the child's changes into its parent (the store is unchanged until the parent saves).
    func saveIntoParent(_ parent: ManagedObjectContext) throws {
        var save = ChildSave()
        for object in insertedSet { save.inserts.append((object.objectID, rowValues(of: object))) }
        for object in updatesToSave {
            object.fireFault()
            let changed = object.changes.keys.compactMap(object.entity.storedIndex(ofProperty:))
            save.updates.append(.init(objectID: object.objectID, values: rowValues(of: object), changed: changed))
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
        let rows = parent.performAndWait { parent.applyChildSave(save, from: self) }
        for (id, row) in rows { registered[id]?.snapshot = row }
        finishSave()
    }

    /// Applies a child's save to this context's objects.
    ///
    /// As in Core Data, no merge policy judges this step (policies act when a context saves to the store): what
    /// the child changed takes the child's values, whatever this context changed meanwhile, and this context's
    /// changes to other properties stay. Each inserted object is this context's own new instance: it is
    /// awakened here (`awakeFromInsert()`, transient defaults) and then takes the child's values.
    /// - Returns: the resulting row of each inserted and updated object, for the child to take as committed.
    func applyChildSave(_ save: ChildSave, from child: ManagedObjectContext) -> [ManagedObjectID: RowSnapshot] {
        var inserted: [(ManagedObject, [StoreValue])] = []
        for (id, values) in save.inserts {
            let object = id.entity.managedObjectClass.init(entity: id.entity, insertInto: nil)
            object.objectID = id
            insert(object, awake: false)
            awaken(object)
            for case .attribute(let attribute) in id.entity.storedProperties {
                object.changes[attribute.index] = values[attribute.storedIndex!]
            }
            inserted.append((object, values))
        }
        for (object, values) in inserted {
            for case .toOne(let relationship) in object.entity.storedProperties {
                // The child's value wins, nil included, over one awakeFromInsert set here.
                var target: ManagedObjectID?
                if case .objectID(let id) = values[relationship.storedIndex!] { target = resolved(id) }
                if object.toOneID(relationship) != target {
                    object.setToOne(relationship, to: target, maintainInverse: true)
                }
            }
        }
        for update in save.updates {
            let object = object(with: update.objectID)
            object.fireFault()
            if object.isInaccessible || object.deletedFlag { continue }  // gone or deleted here: nothing to update
            for index in update.changed {
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
        for id in save.deletes { delete(object(with: id)) }
        processPendingChanges()
        var rows: [ManagedObjectID: RowSnapshot] = [:]
        for id in save.inserts.map(\.objectID) + save.updates.map(\.objectID) {
            if let row = rowForChild(object(with: id)) { rows[id] = row }
        }
        announce(save.ids, except: child)
        return rows
    }
}
