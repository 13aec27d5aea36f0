import LabCore
import ObjectStack

/// Something that watches the main context during a run as a UI would, such as a fetched results controller:
/// its work on every `objectsDidChange` counts in the merge time and the main-thread stalls.
public protocol MainContextObserver: AnyObject {}

extension FetchedResultsController: MainContextObserver {}

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
    /// order).
    @MainActor
    public static func fetchedResultsController<Result: ManagedObject>(
        on context: ManagedObjectContext, request: FetchRequest<Result>
    ) throws -> FetchedResultsController<Result> {
        var all = request
        all.fetchLimit = 0
        all.fetchOffset = 0
        let controller = FetchedResultsController(fetchRequest: all, managedObjectContext: context)
        try controller.performFetch()
        return controller
    }
}
