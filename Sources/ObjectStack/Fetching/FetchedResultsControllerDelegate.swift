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

/// Receives a fetched results controller's changes one by one (Core Data's `NSFetchedResultsControllerDelegate`
/// without its snapshot and difference methods; for those see `FetchedResultsControllerSnapshotDelegate`).
///
/// After each `objectsDidChange` of its context that changes its results, the controller calls, in order:
/// `controllerWillChangeContent`; `didChange section` for each deleted section (descending pre-change
/// indexes), then each inserted section (ascending post-change indexes); `didChange object` for each deleted
/// object (descending pre-change index paths), each inserted object (ascending post-change), each moved
/// object and each updated object; and `controllerDidChangeContent`. These follow the table-view batch-update
/// rules: apply deletes at old positions, then inserts at new ones, a move as a delete and an insert. Every
/// method has a default that does nothing. A controller tracks changes only while it has a delegate, and
/// reports nothing when its context is reset (call `performFetch()` again), as Core Data's does.
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

    public func controllerDidChangeContent(_ controller: any FetchedResultsControlling) {}

    public func controller(
        _ controller: any FetchedResultsControlling, sectionIndexTitleForSectionName sectionName: String
    ) -> String? {
        nil
    }
}

/// A delegate that takes a fetched results controller's changes as whole snapshots, for diffable data sources
/// (Core Data's `controller(_:didChangeContentWith:)`, snapshot form).
///
/// Core Data calls no other delegate method once a delegate implements the snapshot callback. Swift cannot see
/// which protocol methods a type implements, so conforming to this protocol is how a delegate says it does: the
/// controller then calls `controller(_:didChangeContentWith:)` once per change of its results and none of the
/// per-change methods (`controllerWillChangeContent`, `didChange section`, `didChange object`,
/// `controllerDidChangeContent`), even where the delegate implements them. It still asks for section index
/// titles. A delegate that wants the changes one by one conforms to `FetchedResultsControllerDelegate` only.
///
/// For example:
/// ```swift
/// final class BookGrid: FetchedResultsControllerSnapshotDelegate {
///     func controller(_ controller: any FetchedResultsControlling,
///                     didChangeContentWith snapshot: FetchedResultsSnapshot) {
///         print(snapshot.numberOfItems)
///     }
/// }
/// ```
/// - Note: Called on the context's queue, synchronously, while the context posts `objectsDidChange`.
public protocol FetchedResultsControllerSnapshotDelegate: FetchedResultsControllerDelegate {
    /// The results after a change, whole.
    func controller(_ controller: any FetchedResultsControlling, didChangeContentWith snapshot: FetchedResultsSnapshot)
}
