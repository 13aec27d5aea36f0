import ObjectStack

/// Something that watches the main context during a run as a UI would, such as a fetched results controller:
/// its work on every `objectsDidChange` counts in the merge time and the main-thread stalls.
///
/// **Hook for the fetched results controller (issue 7):** set `ScenarioRunner.mainContextObserver` to a factory
/// that builds one on the main context, for example
/// `{ context, request in let frc = FetchedResultsController(fetchRequest: request, managedObjectContext: context,
/// sectionNameKeyPath: nil); try frc.performFetch(); return frc }`. The merge-cost workload attaches it (and
/// keeps it alive) before the first merge; the default is none.
public protocol MainContextObserver: AnyObject {}

/// Builds a `MainContextObserver` on the main context for the first-screen request; called on the main queue.
public typealias MainContextObserverFactory =
    @MainActor (ManagedObjectContext, FetchRequest<Pod>) throws -> (any MainContextObserver)?
