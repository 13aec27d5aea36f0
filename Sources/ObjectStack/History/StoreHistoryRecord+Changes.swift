extension StoreHistoryRecord {
    // MARK: - Changes of a save

    /// Appends the changes a save request makes: an insert per new row, an update naming the stored properties
    /// whose values differ from the row the saver read (every one when it is not known) and the to-many
    /// relationships whose join-table links changed, and a delete per deleted row with its tombstone.
    /// - Parameter committedValues: the values a deleted row had, for the tombstone (nil when unknown: the tombstone
    ///   then holds nothing).
    mutating func appendChanges(
        of request: StoreSaveRequest, committedValues: (ManagedObjectID) -> [StoreValue]?
    ) {
        changes.reserveCapacity(changes.count + request.inserts.count + request.updates.count + request.deletes.count)
        for insert in request.inserts { changes.append(Change(objectID: insert.objectID, changeType: .insert)) }
        var updatePositions: [ManagedObjectID: Int] = [:]
        for update in request.updates {
            let stored = update.objectID.entity.storedProperties
            let names = update.changedIndices().compactMap { $0 < stored.count ? stored[$0].name : nil }
            if !request.insertedLinks.isEmpty || !request.deletedLinks.isEmpty {
                updatePositions[update.objectID] = changes.count
            }
            changes.append(Change(objectID: update.objectID, changeType: .update, updatedProperties: names))
        }
        if !request.insertedLinks.isEmpty || !request.deletedLinks.isEmpty {
            let untouched = Set(request.inserts.map(\.objectID)).union(request.deletes.map(\.objectID))
            func touch(_ id: ManagedObjectID, _ name: String) {
                guard !untouched.contains(id) else { return }
                if let position = updatePositions[id] {
                    if changes[position].updatedProperties?.contains(name) != true {
                        changes[position].updatedProperties?.append(name)
                    }
                } else {
                    updatePositions[id] = changes.count
                    changes.append(Change(objectID: id, changeType: .update, updatedProperties: [name]))
                }
            }
            for link in request.insertedLinks + request.deletedLinks {
                guard
                    let relationship = link.source.entity.relationships.first(where: {
                        $0.storage == .joinTable && $0.joinTableOwner.storageKey == link.relationship
                    })
                else { continue }
                touch(link.source, relationship.name)
                if let inverse = relationship.inverse { touch(link.destination, inverse.name) }
            }
        }
        for delete in request.deletes {
            let preserved = delete.objectID.entity.attributes.filter {
                $0.preservesValueInHistoryOnDeletion && $0.storedIndex != nil
            }
            var tombstone: [String: StoreValue]?
            if !preserved.isEmpty {
                var values: [String: StoreValue] = [:]
                if let row = committedValues(delete.objectID) {
                    for attribute in preserved {
                        let index = attribute.storedIndex!
                        if index < row.count, !row[index].isNull { values[attribute.name] = row[index] }
                    }
                }
                tombstone = values
            }
            changes.append(Change(objectID: delete.objectID, changeType: .delete, tombstone: tombstone))
        }
    }
}
