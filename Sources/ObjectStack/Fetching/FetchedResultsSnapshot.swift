/// The whole of a fetched results controller's results after a change, for diffable data sources: section
/// identifiers (the section names) and the object IDs of each section.
///
/// For example:
/// ```swift
/// func controller(_ controller: any FetchedResultsControlling, didChangeContentWith snapshot: FetchedResultsSnapshot) {
///     for name in snapshot.sectionIdentifiers {
///         print(name, snapshot.itemIdentifiers(inSection: name).count)
///     }
/// }
/// ```
/// Making a snapshot costs O(s) for s sections; the IDs are read when asked for, in O(k) per section, so a
/// delegate that does not read them does not pay for them.
/// - Note: It holds the section's objects until the IDs are read: read them on the context's queue, during the
///   callback (an object's ID changes from temporary to permanent when it is saved).
public struct FetchedResultsSnapshot {
    /// The section names, in order.
    public let sectionIdentifiers: [String]
    let sections: [FetchedRows]

    init(sectionIdentifiers: [String], sections: [FetchedRows]) {
        self.sectionIdentifiers = sectionIdentifiers
        self.sections = sections
    }

    /// How many sections there are.
    public var numberOfSections: Int { sections.count }

    /// How many objects there are in all sections.
    public var numberOfItems: Int { sections.reduce(0) { $0 + $1.count } }

    /// Every object's ID, section after section.
    /// - Complexity: O(n).
    public var itemIdentifiers: [ManagedObjectID] {
        sections.flatMap { $0.entries.map(\.object.objectID) }
    }

    /// The object IDs of the first section with this identifier (empty when there is none).
    /// - Complexity: O(s + k) for s sections and k objects in the section.
    public func itemIdentifiers(inSection identifier: String) -> [ManagedObjectID] {
        guard let index = sectionIdentifiers.firstIndex(of: identifier) else { return [] }
        return sections[index].entries.map(\.object.objectID)
    }

    /// How many objects the first section with this identifier holds (0 when there is none).
    public func numberOfItems(inSection identifier: String) -> Int {
        sectionIdentifiers.firstIndex(of: identifier).map { sections[$0].count } ?? 0
    }
}
