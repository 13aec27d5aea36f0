import Foundation

/// The changes one `objectsDidChange` made to a controller's results, in the order the delegate hears them.
struct FetchedResultsChanges {
    /// One object's change: its old index path (pre-change) and new one (post-change), as the type has them.
    struct ObjectChange {
        let object: ManagedObject
        let type: FetchedResultsChangeType
        let indexPath: IndexPath?
        let newIndexPath: IndexPath?
    }

    /// Deleted sections at their pre-change indexes, descending.
    var deletedSections: [(index: Int, section: FetchedSection)] = []
    /// Inserted sections at their post-change indexes, ascending.
    var insertedSections: [(index: Int, section: FetchedSection)] = []
    /// Deletes (descending old index paths), inserts (ascending new), moves (ascending new), updates (ascending old).
    var objects: [ObjectChange] = []

    var isEmpty: Bool { deletedSections.isEmpty && insertedSections.isEmpty && objects.isEmpty }
}

extension FetchedResultsState {
    /// Applies changed objects to the results and says what changed, in index paths.
    ///
    /// `newKeys` gives an object's sort-key values when it belongs in the results now (it is of the entity,
    /// not deleted, and matches the predicate), nil when it does not. An object that was not in the results
    /// and now belongs is an insert; one that was and no longer belongs a delete; one whose keys changed a
    /// move (even when it lands on the same index path, as Core Data reports it); one whose keys did not an
    /// update. Old index paths are taken before anything changes, new ones after everything has.
    /// - Complexity: O(c (log n + B + n/B)) for c changed objects among n results in chunks of B, plus O(s)
    ///   per section inserted or deleted among s sections; never a pass over every result.
    mutating func apply(_ candidates: some Sequence<ManagedObject>, newKeys: (ManagedObject) -> [StoreValue]?)
        -> FetchedResultsChanges
    {
        typealias Place = (section: Int, position: FetchedRows.Position, row: Int)
        var removals: [(object: ManagedObject, keys: [StoreValue], place: Place, type: FetchedResultsChangeType)] = []
        var additions: [(object: ManagedObject, keys: [StoreValue], from: IndexPath?)] = []
        var updates: [(object: ManagedObject, keys: [StoreValue], from: IndexPath)] = []
        // 1. Classify, and find old places while the results are still as they were.
        for object in candidates {
            let old = keysByObject[ObjectIdentifier(object)]
            let new = newKeys(object)
            switch (old, new) {
            case (nil, nil):
                continue
            case (nil, let new?):
                additions.append((object, new, nil))
            case (let old?, nil):
                guard let place = locateRow(object, keys: old) else { continue }
                removals.append((object, old, place, .delete))
            case (let old?, let new?):
                guard let place = locateRow(object, keys: old) else { continue }
                let from = IndexPath(indexes: [place.section, place.row])
                if order.sameKeys(old, new) {
                    updates.append((object, old, from))
                } else {
                    removals.append((object, old, place, .move))
                    additions.append((object, new, from))
                }
            }
        }
        guard !removals.isEmpty || !additions.isEmpty || !updates.isEmpty else { return FetchedResultsChanges() }
        var changes = FetchedResultsChanges()

        // 2. Remove in descending order, so each old place is still right when its turn comes; removals before
        //    insertions, so a section emptied and refilled in one change stays.
        // (Indexes are sorted, not the records: moving records would retain and release their fields.)
        let removalOrder = removals.indices.sorted { a, b in
            let (x, y) = (removals[a].place, removals[b].place)
            return (x.section, x.position.chunk, x.position.index) > (y.section, y.position.chunk, y.position.index)
        }
        var emptied: [StoreValue: (index: Int, section: FetchedSection)] = [:]
        for removal in removalOrder.lazy.map({ removals[$0] }) {
            if removal.type == .delete {
                changes.objects.append(
                    .init(
                        object: removal.object, type: .delete,
                        indexPath: IndexPath(indexes: [removal.place.section, removal.place.row]),
                        newIndexPath: nil))
            }
            if remove(removal.object, section: removal.place.section, position: removal.place.position) {
                let value = order.sectionValue(removal.keys)
                emptied[value] = (
                    removal.place.section,
                    FetchedSection(
                        value: value, name: FetchedResultsOrder.sectionName(of: value), rows: FetchedRows(sorted: []))
                )
            }
        }

        // 3. Insert in ascending order: each lands after the ones before it, so the index path it gets is its
        //    index path after the whole change.
        let additionOrder = additions.indices.sorted { a, b in
            let byKeys = ValueComparison.compareSortKeys(additions[a].keys, additions[b].keys, order.sortKeys)
            if byKeys != .orderedSame { return byKeys == .orderedAscending }
            return order.compare(
                additions[a].keys, additions[a].object.objectID, additions[b].keys, additions[b].object.objectID)
                == .orderedAscending
        }
        var opened: [StoreValue] = []
        var moves: [FetchedResultsChanges.ObjectChange] = []
        for addition in additionOrder.lazy.map({ additions[$0] }) {
            let (to, isNewSection) = insert(addition.object, keys: addition.keys)
            if isNewSection { opened.append(order.sectionValue(addition.keys)) }
            if let from = addition.from {
                moves.append(.init(object: addition.object, type: .move, indexPath: from, newIndexPath: to))
            } else {
                changes.objects.append(.init(object: addition.object, type: .insert, indexPath: nil, newIndexPath: to))
            }
        }

        // 4. Sections, and the updates' new index paths, from the changed results.
        for (value, deleted) in emptied where !sectionIndex(for: value).found {
            changes.deletedSections.append(deleted)
        }
        for value in opened where emptied[value] == nil {
            let index = sectionIndex(for: value).index
            changes.insertedSections.append((index, sections[index]))
        }
        changes.deletedSections.sort { $0.index > $1.index }
        changes.insertedSections.sort { $0.index < $1.index }
        updates.sort { $0.from < $1.from }
        changes.objects += moves
        for update in updates {
            changes.objects.append(
                .init(
                    object: update.object, type: .update, indexPath: update.from,
                    newIndexPath: indexPath(of: update.object, keys: update.keys)))
        }
        return changes
    }
}
