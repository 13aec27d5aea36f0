import Foundation

/// One section of the results as the controller keeps it: its key value, its name and its rows.
struct FetchedSection {
    var value: StoreValue
    var name: String
    var rows: FetchedRows
}

/// A fetched results controller's results after `performFetch()`: what it matches, in what order, and the
/// sections, kept current change by change.
struct FetchedResultsState {
    let order: FetchedResultsOrder
    let predicate: BoundPredicate?
    /// The entities whose objects can match (the request's entity and, unless excluded, its sub-entities).
    let candidateEntities: Set<ObjectIdentifier>
    /// The related objects the predicate and sort keys read through relationships.
    let dependencies: FetchedResultsDependencies
    var sections: [FetchedSection]
    /// The key values each fetched object was placed by, by object identity.
    var keysByObject: [ObjectIdentifier: [StoreValue]]
    /// Whether sections come and go (with a section key path) or there is always exactly one.
    var isSectioned: Bool { order.isSectioned }

    /// The results of a fetch, in order: sectioned by the first key's value when asked.
    init(
        order: FetchedResultsOrder, predicate: BoundPredicate?, candidateEntities: Set<ObjectIdentifier>,
        sorted entries: [FetchedEntry]
    ) {
        self.order = order
        self.predicate = predicate
        self.candidateEntities = candidateEntities
        dependencies = FetchedResultsDependencies(predicate: predicate, sortKeys: order.sortKeys)
        keysByObject = Dictionary(minimumCapacity: entries.count)
        for entry in entries { keysByObject[ObjectIdentifier(entry.object)] = entry.keys }
        guard order.isSectioned else {
            sections = [FetchedSection(value: .null, name: "", rows: FetchedRows(sorted: entries))]
            return
        }
        sections = []
        var start = entries.startIndex
        while start < entries.endIndex {
            let value = order.sectionValue(entries[start].keys)
            var end = start + 1
            while end < entries.endIndex,
                order.compareSections(order.sectionValue(entries[end].keys), value) == .orderedSame
            { end += 1 }
            sections.append(
                FetchedSection(
                    value: value, name: FetchedResultsOrder.sectionName(of: value),
                    rows: FetchedRows(sorted: entries[start..<end])))
            start = end
        }
    }

    var count: Int { keysByObject.count }

    // MARK: - Finding

    /// The index of the section with a value, or where it would go.
    /// - Complexity: O(log s) for s sections.
    func sectionIndex(for value: StoreValue) -> (index: Int, found: Bool) {
        var low = 0
        var high = sections.count
        while low < high {
            let middle = (low + high) / 2
            if order.compareSections(sections[middle].value, value) == .orderedAscending {
                low = middle + 1
            } else {
                high = middle
            }
        }
        let found = low < sections.count && order.compareSections(sections[low].value, value) == .orderedSame
        return (low, found)
    }

    /// Where an object placed by `keys` is: its section index and position, or nil when it is not there.
    /// - Complexity: O(log n) comparisons.
    func locate(_ object: ManagedObject, keys: [StoreValue]) -> (section: Int, position: FetchedRows.Position)? {
        let (section, found) = sectionIndex(for: order.sectionValue(keys))
        guard found else { return nil }
        let id = object.objectID
        let position = sections[section].rows.lowerBound(of: keys, id, in: order)
        guard sections[section].rows.entry(at: position)?.object === object else { return nil }
        return (section, position)
    }

    /// Where an object placed by `keys` is, with its row number, or nil when it is not there.
    /// - Complexity: O(log n) comparisons, and O(n/B) once after a change.
    mutating func locateRow(_ object: ManagedObject, keys: [StoreValue]) -> (
        section: Int, position: FetchedRows.Position, row: Int
    )? {
        guard let (section, position) = locate(object, keys: keys) else { return nil }
        return (section, position, sections[section].rows.rank(of: position))
    }

    /// The index path of an object placed by `keys`, or nil when it is not there.
    mutating func indexPath(of object: ManagedObject, keys: [StoreValue]) -> IndexPath? {
        locateRow(object, keys: keys).map { IndexPath(indexes: [$0.section, $0.row]) }
    }

    // MARK: - Changing

    /// Removes the fetched object at a place found by `locate`; places before it stay valid, so a batch of
    /// removals goes in descending order. Returns whether its section is now empty (and removed, when sectioned).
    /// - Complexity: O(B + n/B), and O(s) when a section goes.
    mutating func remove(_ object: ManagedObject, section: Int, position: FetchedRows.Position) -> Bool {
        keysByObject[ObjectIdentifier(object)] = nil
        sections[section].rows.remove(at: position)
        guard sections[section].rows.isEmpty, isSectioned else { return false }
        sections.remove(at: section)
        return true
    }

    /// Adds an object with its key values; returns its index path now and whether it opened a section. In a
    /// batch of insertions in ascending order, that index path is also its index path after the batch.
    /// - Complexity: O(log n + B + n/B), and O(s) when a section is added.
    mutating func insert(_ object: ManagedObject, keys: [StoreValue]) -> (indexPath: IndexPath, openedSection: Bool) {
        keysByObject[ObjectIdentifier(object)] = keys
        let value = order.sectionValue(keys)
        let (section, found) = sectionIndex(for: value)
        if !found {
            sections.insert(
                FetchedSection(
                    value: value, name: FetchedResultsOrder.sectionName(of: value), rows: FetchedRows(sorted: [])),
                at: section)
        }
        let id = object.objectID
        let position = sections[section].rows.lowerBound(of: keys, id, in: order)
        let row = sections[section].rows.rank(of: position)
        sections[section].rows.insert(
            FetchedEntry(object: object, keys: keys, lead: order.lead(of: keys)), at: position)
        return (IndexPath(indexes: [section, row]), !found)
    }

    // MARK: - Checking

    /// Debug check of the whole structure: sections in order and non-empty, rows in order, the key map in step.
    /// - Complexity: O(n).
    func checkInvariants() -> String? {
        var total = 0
        for (index, section) in sections.enumerated() {
            if isSectioned, section.rows.isEmpty { return "section \(index) is empty" }
            if index > 0, order.compareSections(sections[index - 1].value, section.value) != .orderedAscending {
                return "section \(index - 1) is not ordered before section \(index)"
            }
            if let problem = section.rows.checkInvariants({ a, b in
                order.compare(a.keys, a.object.objectID, b.keys, b.object.objectID) == .orderedAscending
            }) {
                return "section \(index): \(problem)"
            }
            for entry in section.rows.entries {
                if order.compareSections(order.sectionValue(entry.keys), section.value) != .orderedSame {
                    return "\(entry.object.objectID) is in section \(index) but its section value is \(entry.keys[0])"
                }
                guard let keys = keysByObject[ObjectIdentifier(entry.object)], keys == entry.keys else {
                    return "\(entry.object.objectID) has no key values, or other ones, in the key map"
                }
            }
            total += section.rows.count
        }
        return total == keysByObject.count ? nil : "\(keysByObject.count) objects in the key map, \(total) in sections"
    }
}
