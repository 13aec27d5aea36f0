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

        /// Every notification received so far.
        var all: [[AnyHashable: Any]] { received.withLock { $0 } }

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

    /// Rounds of the race test per store: a few in CI, a thousand from `scripts/remote-change-race.sh`.
    static let raceRounds = Int(ProcessInfo.processInfo.environment["STACKLAB_REMOTE_CHANGE_ROUNDS"] ?? "") ?? 20

    /// The problems with each notification received: a store URL, UUID and history token each present, and the
    /// token naming a transaction the store's history holds.
    static func problems(_ listener: Listener, _ stack: HistoryStack) throws -> [String] {
        let tokens = Set(try stack.history().map(\.token))
        return listener.all.enumerated().compactMap { index, info in
            let key = PersistentStoreCoordinator.RemoteChangeKey.self
            var wrong: [String] = []
            if info[key.storeUUID.rawValue] as? String != stack.store.identifier { wrong.append("no store UUID") }
            if info[key.storeURL.rawValue] as? URL != stack.store.url { wrong.append("no store URL") }
            if let token = info[key.historyToken.rawValue] as? PersistentHistoryToken {
                if !tokens.contains(token) { wrong.append("token \(token) of no transaction") }
            } else {
                wrong.append("no history token")
            }
            return wrong.isEmpty ? nil : "notification \(index + 1): " + wrong.joined(separator: ", ")
        }
    }

    @Test(
        "a write without history (a save's keys reserved before it) posts nothing; the save posts its token",
        arguments: StoreType.allCases)
    func keysReservedFirst(kind: StoreType) throws {
        let stack = try HistoryStack(kind, options: Self.options)
        let listener = Listener(stack.coordinator)
        let context = stack.newContext()
        // The permanent IDs of a first insert come from a key range reserved in a write transaction of its own
        // (LMDB's range, SQLite's key table), committed before the save's own transaction writes any history.
        try context.performAndWait { () throws in
            let note = try context.insertNote("a")
            try context.obtainPermanentIDs(for: [note])
            // The watcher looks once a frame: give it several frames to see the reservation.
            Thread.sleep(forTimeInterval: 0.1)
            try context.save()
        }
        let token = try stack.history().last?.token
        #expect(listener.waitFor(token))
        Thread.sleep(forTimeInterval: 0.05)
        #expect(try Self.problems(listener, stack) == [])
    }

    @Test(
        "every notification of a first save carries the store's URL, UUID and an existing transaction's token",
        arguments: StoreType.allCases)
    func firstSaveRace(kind: StoreType) throws {
        var failures: [String] = []
        for round in 1...Self.raceRounds {
            let stack = try HistoryStack(kind, options: Self.options)
            let listener = Listener(stack.coordinator)
            let context = stack.newContext()
            try context.performAndWait { () throws in
                try context.insertNote("round \(round)")
                try context.save()
            }
            let token = try stack.history().last?.token
            guard listener.waitFor(token) else {
                failures.append("round \(round): the save's token was never posted")
                continue
            }
            // A notification decided before the save committed may still be on its way: wait for it.
            Thread.sleep(forTimeInterval: 0.04)
            failures += try Self.problems(listener, stack).map { "round \(round), \($0)" }
        }
        print("remote change race on \(kind): \(Self.raceRounds) rounds, \(failures.count) bad notifications")
        #expect(failures.isEmpty, "\(failures.prefix(5))")
    }

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
