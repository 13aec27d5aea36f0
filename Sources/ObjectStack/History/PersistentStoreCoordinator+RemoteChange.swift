import Foundation

extension PersistentStoreCoordinator {
    // MARK: - Remote change notifications

    /// Posted when a store added with `StoreDescription.remoteChangeNotificationPost` was written by anyone: one of
    /// this coordinator's contexts, another coordinator, or another process (Core Data's
    /// `NSPersistentStoreRemoteChange`). The object is the coordinator; `userInfo` holds `RemoteChangeKey`s.
    ///
    /// For example:
    /// ```swift
    /// NotificationCenter.default.addObserver(
    ///     forName: PersistentStoreCoordinator.persistentStoreRemoteChange, object: coordinator, queue: nil
    /// ) { note in
    ///     let token = note.userInfo?[PersistentStoreCoordinator.RemoteChangeKey.historyToken.rawValue]
    ///         as? PersistentHistoryToken
    /// }
    /// ```
    /// - Note: Posted on a background thread, within a frame (1/60 s) of the write; writes that land within one
    ///   frame are announced once, with the token of the last. On a store that keeps history, a notification
    ///   follows the history: it is posted when a transaction was recorded, and its token names that transaction
    ///   (a write that records none, such as a save's primary keys reserved ahead of it, is not announced).
    public static let persistentStoreRemoteChange = Notification.Name("ObjectStackPersistentStoreRemoteChange")

    /// The keys of a remote change notification's `userInfo` (Core Data's `NSPersistentHistoryTokenKey`,
    /// `NSStoreUUIDKey`, `NSPersistentStoreURLKey`).
    public enum RemoteChangeKey: String, Sendable {
        /// The `PersistentHistoryToken` of the store's last transaction (present when the store keeps history).
        case historyToken
        /// The store's identifier (`String`).
        case storeUUID
        /// The store's URL.
        case storeURL
    }

    /// Starts watching a store just added, when its options ask for remote change notifications.
    func watchForRemoteChanges(_ store: any PersistentStore, options: [String: String]) {
        guard options[StoreDescription.remoteChangeNotificationPostOption] == "true",
            let observing = store as? any StoreChangeObserving
        else { return }
        let watcher = RemoteChangeWatcher(store: observing)
        remoteChangeWatchers.withLock { $0[ObjectIdentifier(store)] = watcher }
        watcher.start(for: self)
    }

    /// Stops watching a store being removed.
    func stopWatching(_ store: any PersistentStore) {
        remoteChangeWatchers.withLock { $0.removeValue(forKey: ObjectIdentifier(store)) }?.stop()
    }

    /// Called after this coordinator wrote to a store: announces the write at once rather than at the next frame.
    func didWrite(to store: any PersistentStore) {
        guard let watcher = remoteChangeWatchers.withLock({ $0[ObjectIdentifier(store)] }) else { return }
        watcher.check(postingFor: self)
    }

    /// Posts the notification for a store, with the token of the history transaction numbered `sequence` (the one
    /// the watcher saw; nil for a store without history).
    func postRemoteChange(for store: any PersistentStore, sequence: Int64?) {
        var info: [AnyHashable: Any] = [
            RemoteChangeKey.storeUUID.rawValue: store.identifier, RemoteChangeKey.storeURL.rawValue: store.url,
        ]
        if let sequence {
            info[RemoteChangeKey.historyToken.rawValue] = PersistentHistoryToken(
                storeIdentifier: store.identifier, sequence: sequence)
        }
        NotificationCenter.default.post(name: Self.persistentStoreRemoteChange, object: self, userInfo: info)
    }
}
