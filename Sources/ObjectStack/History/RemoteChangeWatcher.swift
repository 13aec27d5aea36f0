import Dispatch
import Foundation

/// Watches one store for writes and posts `PersistentStoreCoordinator.persistentStoreRemoteChange` for each change
/// it sees: once a frame (1/60 s) from a timer, and at once after the coordinator's own writes.
///
/// On a store that keeps persistent history the notification follows the history, not every write: it is posted
/// when the last transaction's number has moved on, with that transaction's token, so each notification names a
/// transaction a history request can read. A write that records no transaction — a save's primary keys reserved in
/// a write transaction of their own before the save's (LMDB's key ranges, SQLite's key table), a history purge —
/// posts nothing; without this, a look between a first save's key reservation and its commit posted a notification
/// with no token at all. A store without history is announced on every write, without a token.
///
/// Writes that land between two looks are announced together, with the token of the last transaction.
/// Notifications are posted on the watcher's own serial queue in the order the looks decided them, so the tokens
/// of successive notifications only grow.
/// - Note: Thread-safe: each look reads and updates what was last seen under one lock, and the timer runs on the
///   watcher's own queue.
final class RemoteChangeWatcher: Sendable {
    /// How often the store is looked at: once a frame, never faster.
    static let interval = DispatchTimeInterval.nanoseconds(16_666_667)

    /// What the last look saw: the store's change stamp and, for a store with history, its last transaction.
    private struct Seen {
        var stamp: UInt64?
        var sequence: Int64?
    }

    private let store: any StoreChangeObserving
    /// The store's history, when it keeps one.
    private let history: (any StoreHistoryStoring)?
    private let seen: LockedValue<Seen>
    /// Where looks run from the timer and every notification is posted.
    private let queue = DispatchQueue(label: "ObjectStack.RemoteChangeWatcher", qos: .userInitiated)
    // A DispatchSourceTimer is not Sendable: it lives in a LockedValue and is only touched under its lock.
    private let timer = LockedValue<DispatchSourceTimer?>(nil)

    init(store: any StoreChangeObserving) {
        self.store = store
        let history = (store as? any StoreHistoryStoring).flatMap { $0.tracksHistory ? $0 : nil }
        self.history = history
        seen = LockedValue(Seen(stamp: try? store.changeStamp(), sequence: try? history?.lastHistorySequence()))
    }

    deinit {
        stop()
    }

    /// Starts looking once a frame, posting for `coordinator` until it is gone or `stop()` is called.
    func start(for coordinator: PersistentStoreCoordinator) {
        let source = DispatchSource.makeTimerSource(queue: queue)
        source.schedule(deadline: .now() + Self.interval, repeating: Self.interval, leeway: .milliseconds(1))
        source.setEventHandler { [weak self, weak coordinator] in
            guard let self else { return }
            guard let coordinator else { return self.stop() }
            self.check(postingFor: coordinator)
        }
        timer.withLock { $0 = source }
        source.resume()
    }

    /// Stops the timer.
    func stop() {
        timer.withLock { timer in
            timer?.cancel()
            timer = nil
        }
    }

    /// Looks at the store and posts when it changed since the last look: on a store with history, only when its
    /// last transaction moved on.
    func check(postingFor coordinator: PersistentStoreCoordinator) {
        seen.withLock { seen in
            guard let stamp = try? store.changeStamp(), stamp != seen.stamp else { return }
            guard let history else {
                seen.stamp = stamp
                post(for: coordinator, sequence: nil)
                return
            }
            // Read after the stamp, so the transaction read is the stamp's or a later one. A failed read leaves the
            // stamp unseen, and the next look tries again.
            let sequence: Int64?
            do {
                sequence = try history.lastHistorySequence()
            } catch {
                return
            }
            seen.stamp = stamp
            guard sequence != nil, sequence != seen.sequence else { return }
            seen.sequence = sequence
            post(for: coordinator, sequence: sequence)
        }
    }

    /// Posts on the watcher's queue: enqueued under the look's lock, so notifications leave in the order the looks
    /// decided them, and an observer that saves (and so looks again) never waits for the lock it would hold.
    private func post(for coordinator: PersistentStoreCoordinator, sequence: Int64?) {
        queue.async { [weak coordinator, store] in
            coordinator?.postRemoteChange(for: store, sequence: sequence)
        }
    }
}
