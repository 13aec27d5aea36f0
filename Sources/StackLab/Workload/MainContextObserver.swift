import LabCore
import ObjectStack

/// Something that watches the main context during a run as a UI would, such as a fetched results controller:
/// its work on every `objectsDidChange` counts in the merge time and the main-thread stalls.
public protocol MainContextObserver: AnyObject {}

/// Builds a `MainContextObserver` on the main context for the first-screen request; called on the main queue.
public typealias MainContextObserverFactory =
    @MainActor (ManagedObjectContext, FetchRequest<Pod>) throws -> (any MainContextObserver)?

extension FetchedResultsController: MainContextObserver {}

/// The observers the lab attaches, by the name the merge-cost workload's `observer` parameter gives.
public enum MainContextObservers {
    /// The names `observer` takes: `frc`, or `none` for nothing watching.
    public static let names = ["frc", "none"]

    /// The factory called `name`; nil for `none` (or an unknown name, which the scenario file refuses).
    public static func named(_ name: String) -> MainContextObserverFactory? {
        name == "frc" ? fetchedResultsController : nil
    }

    /// A fetched results controller over every pod in the first screen's order, as a table view of the whole
    /// catalogue would have (a controller takes no fetch limit: it keeps every matching object in order).
    public static let fetchedResultsController: MainContextObserverFactory = { context, request in
        var all = request
        all.fetchLimit = 0
        all.fetchOffset = 0
        let controller = FetchedResultsController(fetchRequest: all, managedObjectContext: context)
        try controller.performFetch()
        return controller
    }
}
