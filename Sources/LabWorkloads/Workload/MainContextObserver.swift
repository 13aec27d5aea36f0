import Foundation
import LabCore
import ObjectStack

/// Something that watches the main context during a run as a UI would, such as a fetched results controller:
/// its work on every `objectsDidChange` counts in the merge time and the main-thread stalls.
public protocol MainContextObserver: AnyObject {
    /// How many objects the observer lists now, if it keeps a list (for the run's checks).
    var listedCount: Int? { get }
}

/// A fetched results controller with the delegate a table view gives it, which counts the changes it hears: a
/// controller tracks changes only while it has a delegate (as Core Data's does), so the list holds both.
public final class ObservedList<Result: ManagedObject>: MainContextObserver, FetchedResultsControllerDelegate {
    /// The controller keeping the list.
    public let controller: FetchedResultsController<Result>
    /// How many object changes (inserts, deletes, moves, updates) the controller reported.
    public private(set) var changesHeard = 0

    init(controller: FetchedResultsController<Result>) {
        self.controller = controller
        controller.delegate = self
    }

    public var listedCount: Int? { controller.fetchedObjects?.count }

    public func controller(
        _ controller: any FetchedResultsControlling, didChange object: ManagedObject, at indexPath: IndexPath?,
        for type: FetchedResultsChangeType, newIndexPath: IndexPath?
    ) {
        changesHeard += 1
    }
}

/// The observers the lab attaches, by the name the merge-cost workload's `observer` parameter gives.
public enum MainContextObservers {
    /// The names `observer` takes: `frc`, or `none` for nothing watching.
    public static let names = ["frc", "none"]

    /// Attaches the observer called `name` to the main context for the first screen's `request` (pods, or a
    /// model file's entity); nil for `none` (or an unknown name, which the scenario file refuses). Call on the
    /// main queue.
    /// - Throws: what the controller's first fetch throws.
    @MainActor
    public static func attach<Result: ManagedObject>(
        _ name: String, to context: ManagedObjectContext, request: FetchRequest<Result>
    ) throws -> (any MainContextObserver)? {
        name == "frc" ? try fetchedResultsController(on: context, request: request) : nil
    }

    /// A fetched results controller over every object of the first screen's request in its order, as a table
    /// view of the whole list would have (a controller takes no fetch limit: it keeps every matching object in
    /// order), with its delegate.
    @MainActor
    public static func fetchedResultsController<Result: ManagedObject>(
        on context: ManagedObjectContext, request: FetchRequest<Result>
    ) throws -> ObservedList<Result> {
        var all = request
        all.fetchLimit = 0
        all.fetchOffset = 0
        let list = ObservedList(
            controller: FetchedResultsController(fetchRequest: all, managedObjectContext: context))
        try list.controller.performFetch()
        return list
    }
}
