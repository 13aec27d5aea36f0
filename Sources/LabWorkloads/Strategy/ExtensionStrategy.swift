import Foundation
import LabCore
import ObjectStack

/// An app with a share extension: the import runs in another process (`stacklab child extension-import`, the
/// "extension") writing to the same store file, while the app's view context — pinned to a query generation, as
/// Apple's history samples pin it — merges the extension's transactions from persistent history on each remote
/// change notification. The app has no background context of its own. File stores only: another process cannot
/// open an in-memory store.
public struct ExtensionStrategy: StackStrategy {
    public let declaration = ConcurrencyStrategy(
        "extension", color: "#8c564b",
        about: "another process (an app extension) imports into the same store file; the app's view context, "
            + "pinned to a query generation, merges the extension's transactions from persistent history on each "
            + "remote change notification")

    /// Creates the strategy.
    public init() {}

    public var storeOptions: [String: String] { HistoryStoreOptions.all }
    public var writesInAnotherProcess: Bool { true }

    /// None: the strategy's background work is the extension process's.
    public func newBackgroundContext(on stack: LabStack) throws -> ManagedObjectContext {
        throw LabError(
            .unsupported,
            "the extension strategy writes from another process (the import workload's extension), not from a "
                + "background context of the app")
    }

    /// Refuses the in-memory store, pins the view context and starts the history merger.
    public func didBuild(_ stack: LabStack) throws {
        guard stack.store.isFile else {
            throw LabError(.unsupported, "the extension strategy needs a store file another process can open")
        }
        try stack.pinMainToCurrentGeneration()
        stack.attach(HistoryMerger(stack: stack))
    }

    /// The seeding is not merged; the pinned view context moves to the seeded store.
    public func didSeed(_ stack: LabStack) throws {
        stack.attached(HistoryMerger.self)?.skipToNow()
        try stack.pinMainToCurrentGeneration()
    }

    /// Waits until the view context merged the history up to the store's last transaction.
    public func catchUp(on stack: LabStack) async throws {
        try await stack.attached(HistoryMerger.self)?.waitUntilCaughtUp()
    }
}
