/// One section of a fetched results controller's results (Core Data's `NSFetchedResultsSectionInfo`).
///
/// A section is a value: it shows the results as they were when it was read from `sections`, and later
/// changes do not alter it. Making one costs O(1); reading `objects` costs O(k) for k objects.
/// - Note: Holds managed objects: use it on the controller's context's queue.
public struct FetchedResultsSection {
    /// The section's name: the section key's value as text ("" for nil, and for a controller without a
    /// `sectionNameKeyPath`).
    public let name: String
    /// The section's index title (by default the name's first letter, capitalised).
    public let indexTitle: String?
    let rows: FetchedRows

    init(name: String, indexTitle: String?, rows: FetchedRows) {
        self.name = name
        self.indexTitle = indexTitle
        self.rows = rows
    }

    /// How many objects the section holds.
    public var numberOfObjects: Int { rows.count }

    /// The section's objects, in the controller's order.
    /// - Complexity: O(k) for k objects.
    public var objects: [ManagedObject] { rows.objects }
}
