import Foundation
import LabCore
import ObjectStack

/// Apple's large-import strategy (the "Loading and Displaying a Large Data Feed" sample): the import writes with
/// batch insert requests on a background context, the store keeps persistent history and posts remote change
/// notifications, and the view context merges from the history: on each notification, the transactions after its
/// last token, each as `objectIDNotification()`. Other background writes save as usual and arrive the same way.
public struct BatchHistoryStrategy: StackStrategy {
    public let declaration = ConcurrencyStrategy(
        "batch-history", color: "#e377c2",
        about: "the import writes with batch insert requests; the store keeps persistent history and the view "
            + "context merges it (transactions after its last token, objectIDNotification()) on each remote "
            + "change notification")

    /// Creates the strategy.
    public init() {}

    public var storeOptions: [String: String] { HistoryStoreOptions.all }
    public var importsWithBatchInserts: Bool { true }

    /// A private context on the shared coordinator; its writes reach the view context through the history only.
    public func newBackgroundContext(on stack: LabStack) throws -> ManagedObjectContext {
        let context = stack.backgroundContext()
        context.transactionAuthor = "import"
        return context
    }

    /// Starts the history merger.
    public func didBuild(_ stack: LabStack) throws {
        stack.attach(HistoryMerger(stack: stack))
    }

    /// The seeding is not merged.
    public func didSeed(_ stack: LabStack) throws {
        stack.attached(HistoryMerger.self)?.skipToNow()
    }

    /// Waits until the view context merged the history up to the store's last transaction.
    public func catchUp(on stack: LabStack) async throws {
        try await stack.attached(HistoryMerger.self)?.waitUntilCaughtUp()
    }
}

/// The store options of the strategies that merge from persistent history.
enum HistoryStoreOptions {
    /// Persistent history tracking and remote change notifications, both on.
    static let all = [
        StoreDescription.persistentHistoryTrackingOption: "true",
        StoreDescription.remoteChangeNotificationPostOption: "true",
    ]
}
