import Foundation

/// What a delegate can ask of any fetched results controller, whatever its result type.
public protocol FetchedResultsControlling: AnyObject {
    /// The context whose objects the controller fetches and watches.
    var managedObjectContext: ManagedObjectContext { get }
    /// The key path that names sections, if any.
    var sectionNameKeyPath: String? { get }
    /// The sections, or nil before `performFetch()`.
    var sections: [FetchedResultsSection]? { get }
    /// The object at an index path, as a `ManagedObject`.
    func managedObject(at indexPath: IndexPath) -> ManagedObject
}

/// Receives a fetched results controller's changes (Core Data's `NSFetchedResultsControllerDelegate`).
///
/// After each `objectsDidChange` of its context that changes its results, the controller calls, in order:
/// `controllerWillChangeContent`; `didChange section` for each deleted section (descending pre-change
/// indexes), then each inserted section (ascending post-change indexes); `didChange object` for each deleted
/// object (descending pre-change index paths), each inserted object (ascending post-change), each moved
/// object and each updated object; `didChangeContentWith snapshot`; and `controllerDidChangeContent`. These
/// follow the table-view batch-update rules: apply deletes at old positions, then inserts at new ones, a move
/// as a delete and an insert. Every method has a default that does nothing.
///
/// For example:
/// ```swift
/// final class BookList: FetchedResultsControllerDelegate {
///     func controller(_ controller: any FetchedResultsControlling, didChange object: ManagedObject,
///                     at indexPath: IndexPath?, for type: FetchedResultsChangeType, newIndexPath: IndexPath?) {
///         print(type, indexPath as Any, newIndexPath as Any)
///     }
/// }
/// ```
/// - Note: Called on the context's queue, synchronously, while the context posts `objectsDidChange`.
public protocol FetchedResultsControllerDelegate: AnyObject {
    /// The controller is about to report changes.
    func controllerWillChangeContent(_ controller: any FetchedResultsControlling)
    /// A section was inserted (at its post-change index) or deleted (at its pre-change index).
    func controller(
        _ controller: any FetchedResultsControlling, didChange section: FetchedResultsSection,
        atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType)
    /// An object was inserted (`newIndexPath`), deleted (`indexPath`), moved or updated (both).
    func controller(
        _ controller: any FetchedResultsControlling, didChange object: ManagedObject, at indexPath: IndexPath?,
        for type: FetchedResultsChangeType, newIndexPath: IndexPath?)
    /// The results after the change, whole, for diffable data sources.
    func controller(_ controller: any FetchedResultsControlling, didChangeContentWith snapshot: FetchedResultsSnapshot)
    /// The controller has reported every change.
    func controllerDidChangeContent(_ controller: any FetchedResultsControlling)
    /// The index title of a section; nil for the default (the name's first letter, capitalised).
    func controller(_ controller: any FetchedResultsControlling, sectionIndexTitleForSectionName sectionName: String)
        -> String?
}

extension FetchedResultsControllerDelegate {
    public func controllerWillChangeContent(_ controller: any FetchedResultsControlling) {}

    public func controller(
        _ controller: any FetchedResultsControlling, didChange section: FetchedResultsSection,
        atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType
    ) {}

    public func controller(
        _ controller: any FetchedResultsControlling, didChange object: ManagedObject, at indexPath: IndexPath?,
        for type: FetchedResultsChangeType, newIndexPath: IndexPath?
    ) {}

    public func controller(
        _ controller: any FetchedResultsControlling, didChangeContentWith snapshot: FetchedResultsSnapshot
    ) {}

    public func controllerDidChangeContent(_ controller: any FetchedResultsControlling) {}

    public func controller(
        _ controller: any FetchedResultsControlling, sectionIndexTitleForSectionName sectionName: String
    ) -> String? {
        nil
    }
}
