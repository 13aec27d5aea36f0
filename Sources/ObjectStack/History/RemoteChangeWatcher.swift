import Dispatch
import Foundation

/// Watches one store for writes and posts `PersistentStoreCoordinator.persistentStoreRemoteChange` for each change
/// it sees: once a frame (1/60 s) from a timer, and at once after the coordinator's own writes.
///
/// Writes that land between two looks are announced together, with the token of the last transaction.
/// - Note: Thread-safe: the last stamp seen is kept under a lock, and the timer runs on the watcher's own queue.
final class RemoteChangeWatcher: Sendable {
    /// How often the store is looked at: once a frame, never faster.
    static let interval = DispatchTimeInterval.nanoseconds(16_666_667)

    private let store: any StoreChangeObserving
    private let lastStamp: LockedValue<UInt64?>
    // A DispatchSourceTimer is not Sendable: it lives in a LockedValue and is only touched under its lock.
    private let timer = LockedValue<DispatchSourceTimer?>(nil)

    init(store: any StoreChangeObserving) {
        self.store = store
        lastStamp = LockedValue(try? store.changeStamp())
    }

    deinit {
        stop()
    }

    /// Starts looking once a frame, posting for `coordinator` until it is gone or `stop()` is called.
    func start(for coordinator: PersistentStoreCoordinator) {
        let source = DispatchSource.makeTimerSource(
            queue: DispatchQueue(label: "ObjectStack.RemoteChangeWatcher", qos: .userInitiated))
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

    /// Looks at the store and posts when it changed since the last look.
    func check(postingFor coordinator: PersistentStoreCoordinator) {
        guard let stamp = try? store.changeStamp() else { return }
        let changed = lastStamp.withLock { last in
            guard last != stamp else { return false }
            last = stamp
            return true
        }
        guard changed else { return }
        // Posted outside the lock: an observer may save, which looks again.
        coordinator.postRemoteChange(for: store)
    }
}
