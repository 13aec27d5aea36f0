import Foundation
import LabCore
import ObjectStack
import Synchronization

/// Brings a store's writes into the main context from its persistent history, as Apple's current samples do: on
/// each remote change notification a private context fetches the transactions after the last token it merged, and
/// the main context merges each transaction's `objectIDNotification()`. Whoever wrote them (a background context
/// of this process, another coordinator, another process) they arrive the same way.
///
/// Each main-queue merge pass (every transaction one notification brought) is one entry of the stack's merge log.
/// - Note: Thread-safe: the token lives on the history context's queue, the merged token behind a mutex.
final class HistoryMerger: Sendable {
    private let main: ManagedObjectContext
    private let coordinator: PersistentStoreCoordinator
    private let history: ManagedObjectContext
    private let merges: MergeLog
    private let clock: any LabClock
    /// The tokens of every transaction the main context merged (and of the store's last one when the merger
    /// started): `waitUntilCaughtUp` waits for the store's current one to be among them.
    private let merged: Mutex<Set<PersistentHistoryToken?>>
    // Touched on the history context's queue only, which is serial: the fetch-after token.
    nonisolated(unsafe) private var fetchedUpTo: PersistentHistoryToken?
    /// Bumped when the store was seeded outside the strategy: merges queued before are of seeding, and dropped.
    private let epoch = Mutex(0)
    /// The last error a history fetch threw, reported by `waitUntilCaughtUp`.
    private let failure = Mutex<String?>(nil)

    /// Starts merging the writes made from now on into `stack`'s main context; stops when the stack closes.
    init(stack: LabStack) {
        main = stack.main
        coordinator = stack.primaryCoordinator
        merges = stack.merges
        clock = stack.clock
        history = ManagedObjectContext(concurrencyType: .privateQueue)
        history.name = "history"
        history.persistentStoreCoordinator = coordinator
        let now = coordinator.currentPersistentHistoryToken()
        fetchedUpTo = now
        merged = Mutex([now])
        let token = NotificationCenter.default.addObserver(
            forName: PersistentStoreCoordinator.persistentStoreRemoteChange, object: coordinator, queue: nil
        ) { [weak self] _ in
            guard let self else { return }
            self.history.perform { self.fetchAndMerge() }
        }
        stack.keep(observer: token)
    }

    /// Where the history starts for a store seeded outside the strategy: what is there now is not merged (as the
    /// other strategies' main contexts never hear of the seeding), and merges of it already queued are dropped.
    func skipToNow() {
        history.performAndWait {
            let now = coordinator.currentPersistentHistoryToken()
            fetchedUpTo = now
            epoch.withLock { $0 += 1 }
            merged.withLock { _ = $0.insert(now) }
        }
    }

    /// On the history queue: fetches the transactions after the last token and hands them to the main queue.
    private func fetchAndMerge() {
        let transactions: [PersistentHistoryTransaction]
        do {
            transactions = try history.execute(PersistentHistoryChangeRequest.fetchHistory(after: fetchedUpTo))
                .transactions
        } catch {
            failure.withLock { $0 = "fetching the persistent history failed: \(error)" }
            return
        }
        guard let last = transactions.last?.token else { return }
        fetchedUpTo = last
        let tokens = transactions.map(\.token)
        let notifications = transactions.map { $0.objectIDNotification() }
        let queuedIn = epoch.withLock { $0 }
        // The notifications carry object IDs only, which are Sendable values; the array type is not.
        nonisolated(unsafe) let pending = notifications
        main.perform { [self] in
            guard epoch.withLock({ $0 }) == queuedIn else { return }
            let (_, milliseconds) = clock.measure {
                for notification in pending { main.mergeChanges(fromContextDidSave: notification) }
            }
            merges.record(milliseconds: milliseconds)
            merged.withLock { $0.formUnion(tokens) }
        }
    }

    /// Returns once the main context merged every transaction the store had when called.
    /// - Throws: `LabError` when a history fetch failed, or the merges did not arrive within `timeout` seconds.
    func waitUntilCaughtUp(timeout: Double = 30) async throws {
        let target = coordinator.currentPersistentHistoryToken()
        let deadline = Date().addingTimeInterval(timeout)
        while !merged.withLock({ $0.contains(target) }) {
            if let message = failure.withLock({ $0 }) { throw LabError(.workloadFailed, message) }
            guard Date() < deadline else {
                throw LabError(
                    .workloadFailed,
                    "the main context did not merge the store's persistent history up to \(String(describing: target))"
                        + " within \(Int(timeout)) s of the writes (no remote change notification for the last write?)")
            }
            try await Task.sleep(for: .milliseconds(1))
        }
        _ = try? await main.perform { 0 }
    }
}
