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
    mutating func apply(_ candidates: some Sequence<ManagedObject>, newKeys: (ManagedObject) -> [StoreValue]?) -> FetchedResultsChanges {
        var removals: [(object: ManagedObject, keys: [StoreValue], from: IndexPath, type: FetchedResultsChangeType)] = []
        var additions: [(object: ManagedObject, keys: [StoreValue], from: IndexPath?, type: FetchedResultsChangeType)] = []
        var updates: [(object: ManagedObject, keys: [StoreValue], from: IndexPath)] = []
        // 1. Classify, and find old index paths while the results are still as they were.
        for object in candidates {
            let old = keysByObject[ObjectIdentifier(object)]
            let new = newKeys(object)
            switch (old, new) {
            case (nil, nil):
                continue
            case (nil, let new?):
                additions.append((object, new, nil, .insert))
            case (let old?, nil):
                guard let from = indexPath(of: object, keys: old) else { continue }
                removals.append((object, old, from, .delete))
            case (let old?, let new?):
                guard let from = indexPath(of: object, keys: old) else { continue }
                if order.sameKeys(old, new) {
                    updates.append((object, old, from))
                } else {
                    removals.append((object, old, from, .move))
                    additions.append((object, new, from, .move))
                }
            }
        }
        guard !removals.isEmpty || !additions.isEmpty || !updates.isEmpty else { return FetchedResultsChanges() }

        // 2. Change the results: removals first, so a section emptied and refilled in one change stays.
        var emptied: [StoreValue: (index: Int, section: FetchedSection)] = [:]
        for removal in removals where remove(removal.object) {
            // `from` is the pre-change index: the one a delete of the section is reported at.
            let value = order.sectionValue(removal.keys)
            emptied[value] = (removal.from[0], FetchedSection(value: value, name: FetchedResultsOrder.sectionName(of: value), rows: FetchedRows(sorted: [])))
        }
        var opened: [StoreValue] = []
        for addition in additions where insert(addition.object, keys: addition.keys) {
            opened.append(order.sectionValue(addition.keys))
        }

        // 3. Report, with new index paths read from the changed results.
        var changes = FetchedResultsChanges()
        for (value, deleted) in emptied where !sectionIndex(for: value).found {
            changes.deletedSections.append(deleted)
        }
        for value in opened where emptied[value] == nil {
            let index = sectionIndex(for: value).index
            changes.insertedSections.append((index, sections[index]))
        }
        changes.deletedSections.sort { $0.index > $1.index }
        changes.insertedSections.sort { $0.index < $1.index }

        var deletes: [FetchedResultsChanges.ObjectChange] = []
        for removal in removals where removal.type == .delete {
            deletes.append(.init(object: removal.object, type: .delete, indexPath: removal.from, newIndexPath: nil))
        }
        var inserts: [FetchedResultsChanges.ObjectChange] = []
        var moves: [FetchedResultsChanges.ObjectChange] = []
        for addition in additions {
            let to = indexPath(of: addition.object, keys: addition.keys)
            if addition.type == .insert {
                inserts.append(.init(object: addition.object, type: .insert, indexPath: nil, newIndexPath: to))
            } else {
                moves.append(.init(object: addition.object, type: .move, indexPath: addition.from, newIndexPath: to))
            }
        }
        let changed = updates.map { update in
            FetchedResultsChanges.ObjectChange(
                object: update.object, type: .update, indexPath: update.from, newIndexPath: indexPath(of: update.object, keys: update.keys))
        }
        let missing = IndexPath(indexes: [Int.max, Int.max])
        deletes.sort { $0.indexPath ?? missing > $1.indexPath ?? missing }
        inserts.sort { $0.newIndexPath ?? missing < $1.newIndexPath ?? missing }
        moves.sort { $0.newIndexPath ?? missing < $1.newIndexPath ?? missing }
        changes.objects = deletes + inserts + moves + changed.sorted { $0.indexPath ?? missing < $1.indexPath ?? missing }
        return changes
    }

    /// Empties the results (after the context's `reset()`), reporting every object and section as deleted.
    /// - Complexity: O(n).
    mutating func removeAll() -> FetchedResultsChanges {
        var changes = FetchedResultsChanges()
        for (sectionIndex, section) in sections.enumerated().reversed() {
            if isSectioned { changes.deletedSections.append((sectionIndex, section)) }
            for (row, entry) in section.rows.entries.enumerated().reversed() {
                changes.objects.append(.init(object: entry.object, type: .delete, indexPath: IndexPath(indexes: [sectionIndex, row]), newIndexPath: nil))
            }
        }
        keysByObject = [:]
        sections = isSectioned ? [] : [FetchedSection(value: .null, name: "", rows: FetchedRows(sorted: []))]
        return changes
    }
}
