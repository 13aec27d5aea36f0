import Foundation
import ObjectStack
import Testing

/// Remote change notifications: a coordinator whose store asks for them hears of every write to the store, its
/// own contexts', another coordinator's (and another process's: `RemoteChangeProcessTests` in the lab's tests).
@Suite("Remote change notifications")
struct RemoteChangeTests {
    /// Collects the remote change notifications one coordinator posts.
    final class Listener: Sendable {
        private let received = LockedValue<[[AnyHashable: Any]]>([])
        private let observer = LockedValue<(any NSObjectProtocol)?>(nil)

        init(_ coordinator: PersistentStoreCoordinator) {
            let token = NotificationCenter.default.addObserver(
                forName: PersistentStoreCoordinator.persistentStoreRemoteChange, object: coordinator, queue: nil
            ) { [received] note in
                let info = note.userInfo ?? [:]
                received.withLock { $0.append(info) }
            }
            observer.withLock { $0 = token }
        }

        deinit {
            if let token = observer.withLock({ $0 }) { NotificationCenter.default.removeObserver(token) }
        }

        var tokens: [PersistentHistoryToken] {
            received.withLock { list in
                list.compactMap {
                    $0[PersistentStoreCoordinator.RemoteChangeKey.historyToken.rawValue] as? PersistentHistoryToken
                }
            }
        }

        var count: Int { received.withLock { $0.count } }

        var last: [AnyHashable: Any]? { received.withLock { $0.last } }

        /// Waits (up to a generous deadline, for a loaded machine) until a notification carries `token`.
        func waitFor(_ token: PersistentHistoryToken?) -> Bool {
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline {
                if let token, tokens.contains(token) { return true }
                Thread.sleep(forTimeInterval: 0.005)
            }
            print(
                "waiting for \(token.map(String.init(describing:)) ?? "nil"): saw \(count) notification(s), tokens \(tokens)"
            )
            return false
        }
    }

    static let options = [StoreDescription.remoteChangeNotificationPostOption: "true"]

    @Test("a save by one of the coordinator's own contexts is announced with its token", arguments: StoreType.allCases)
    func ownSave(kind: StoreType) throws {
        let stack = try HistoryStack(kind, options: Self.options)
        let listener = Listener(stack.coordinator)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            try context.insertNote("a")
            try context.save()
        }
        let token = try stack.history().last?.token
        #expect(token != nil)
        #expect(listener.waitFor(token))
        let info = try #require(listener.last)
        #expect(
            info[PersistentStoreCoordinator.RemoteChangeKey.storeUUID.rawValue] as? String == stack.store.identifier)
        #expect(info[PersistentStoreCoordinator.RemoteChangeKey.storeURL.rawValue] as? URL == stack.store.url)
    }

    @Test("another coordinator's save and batch request on the store are announced", arguments: StoreType.allCases)
    func otherCoordinator(kind: StoreType) throws {
        let stack = try HistoryStack(kind, options: Self.options)
        let listener = Listener(stack.coordinator)
        let other = try stack.separateStack()
        let writer = other.newContext(author: "other")
        try writer.performAndWait { () throws in
            try writer.insertNote("from elsewhere")
            try writer.save()
        }
        #expect(listener.waitFor(try other.history().last?.token))
        try writer.performAndWait { () throws in
            try writer.execute(BatchInsertRequest(entityName: "Note", objects: [["title": "batch"]]))
        }
        let batchToken = try other.history().last?.token
        #expect(listener.waitFor(batchToken), "tokens seen: \(listener.tokens), notifications: \(listener.count)")
        // The token names a transaction this coordinator can read.
        let fetched = try stack.history().last
        #expect(fetched?.token == batchToken)
        #expect(fetched?.author == "other")
    }

    @Test("a store without history tracking is still announced, without a token", arguments: StoreType.allCases)
    func withoutHistory(kind: StoreType) throws {
        let stack = try HistoryStack(kind, tracking: false, options: Self.options)
        let listener = Listener(stack.coordinator)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            try context.insertNote("a")
            try context.save()
        }
        let deadline = Date().addingTimeInterval(10)
        while listener.count == 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
        #expect(listener.count >= 1)
        #expect(listener.tokens.isEmpty)
    }

    @Test("without the option, or after the store is removed, nothing is posted", arguments: StoreType.allCases)
    func quietWithoutOption(kind: StoreType) throws {
        let quiet = try HistoryStack(kind)
        let listener = Listener(quiet.coordinator)
        let context = quiet.newContext()
        try context.performAndWait { () throws in
            try context.insertNote("a")
            try context.save()
        }
        let loud = try HistoryStack(kind, location: quiet.location, options: Self.options)
        let loudListener = Listener(loud.coordinator)
        try loud.coordinator.remove(loud.store)
        try context.performAndWait { () throws in
            try context.insertNote("b")
            try context.save()
        }
        // Ten frames: a watcher would have looked several times.
        Thread.sleep(forTimeInterval: 0.17)
        #expect(listener.count == 0)
        #expect(loudListener.count == 0)
    }
}
